package peppol

import (
	_ "embed"
	"fmt"
	"strings"

	"einvoice/ubl/codelists"
	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"
)

//go:generate go run ./gen -rules ../../../../shared/conformance/rules/peppol-order-t01.csv -out t01-structure.txt

//go:embed t01-structure.txt
var structureTable string

// structurePattern is pattern #3 of T01: one rule per element of the transaction, in order, and after an
// element's descendants a rule that refuses any other child. Elements without checks still have their
// rule, so that, as in Schematron, they are not taken by the refusing rule.
func structurePattern() *rules.Pattern {
	var out []*rules.Rule
	var current *rules.Rule
	for _, line := range strings.Split(structureTable, "\n") {
		switch {
		case strings.HasPrefix(line, "rule "):
			f := strings.Fields(line)
			current = rules.NewRule(f[2], nil)
			out = append(out, current)
		case strings.HasPrefix(line, "  "):
			current.Asserts = append(current.Asserts, structureCheck(strings.Fields(line), current.Context))
		}
	}
	return rules.NewPattern("#3", out...)
}

// structureCheck builds one check of the table: ID KIND PARAM….
func structureCheck(f []string, ctx *rules.Context) *rules.Assert {
	id, kind := f[0], f[1]
	assert := func(t rules.Test, en, pt string) *rules.Assert {
		return rules.NewAssert(id, rules.Fatal, false, t, en, pt)
	}
	switch kind {
	case "child":
		p := rules.P(f[2])
		return assert(func(c *rules.Ctx, n xmltree.NodeID) bool { return c.Exists(n, p) },
			"Element '"+f[2]+"' MUST be provided.", "O elemento '"+f[2]+"' tem de estar presente.")
	case "attr":
		a := rules.MustName(f[2])
		return assert(func(c *rules.Ctx, n xmltree.NodeID) bool { _, ok := c.Attr(n, a); return ok },
			"Attribute '"+f[2]+"' MUST be present.", "O atributo '"+f[2]+"' tem de estar presente.")
	case "attr-code":
		a, l := rules.MustName(f[2]), list(f[3])
		return assert(func(c *rules.Ctx, n xmltree.NodeID) bool {
			v, ok := c.Attr(n, a)
			return !ok || l.Has(v)
		}, "Value of '"+f[2]+"' is not allowed ("+l.Name+").", "O valor de '"+f[2]+"' não é permitido ("+l.Name+").")
	case "code":
		lists := []*codelists.List{list(f[2])}
		if len(f) > 3 {
			lists = append(lists, list(f[3]))
		}
		return assert(func(c *rules.Ctx, n xmltree.NodeID) bool {
			v := c.TextValue(n)
			for _, l := range lists {
				if l.Has(v) {
					return true
				}
			}
			return false
		}, "Value is not allowed ("+lists[0].Name+").", "O valor não é permitido ("+lists[0].Name+").")
	case "text":
		return assert(func(c *rules.Ctx, n xmltree.NodeID) bool { return c.TextValue(n) == "false" },
			"Value MUST be 'false'.", "O valor tem de ser 'false'.")
	case "refuse":
		return assert(func(*rules.Ctx, xmltree.NodeID) bool { return false },
			"Document MUST NOT contain elements not part of the data model.", "O documento não pode conter elementos fora do modelo de dados.")
	case "no-schema-location":
		return assert(noSchemaLocation,
			"Attribute 'xsi:schemaLocation' MUST NOT be used.", "O atributo 'xsi:schemaLocation' não pode ser usado.")
	}
	panic(fmt.Sprintf("peppol: unknown structure check %q in %v", kind, f))
}

func list(name string) *codelists.List { return codelists.Get("peppol-" + name) }

// noSchemaLocation is not(@*:schemaLocation): no attribute named schemaLocation, in any namespace.
func noSchemaLocation(c *rules.Ctx, n xmltree.NodeID) bool {
	t := c.Tree()
	for _, a := range t.Attrs(n) {
		if t.QName(a.Name).Local == "schemaLocation" {
			return false
		}
	}
	return true
}
