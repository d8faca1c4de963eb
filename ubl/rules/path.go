package rules

import (
	"strings"

	"einvoice/ubl/xmltree"
)

// Namespaces by the prefixes rule code uses.
var prefixes = map[string]string{
	"cbc":   "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
	"cac":   "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
	"ext":   "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
	"inv":   "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
	"cn":    "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
	"ord":   "urn:oasis:names:specification:ubl:schema:xsd:Order-2",
	"sig":   "urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2",
	"sac":   "urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2",
	"sbc":   "urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2",
	"ds":    "http://www.w3.org/2000/09/xmldsig#",
	"xades": "http://uri.etsi.org/01903/v1.3.2#",
}

// MustName is the Name of "prefix:Local" (or "local" for an unqualified attribute). The name must be
// one the schema tables registered, so that a typo fails at start-up instead of never matching.
func MustName(q string) xmltree.Name {
	space := ""
	local := q
	if p, l, ok := strings.Cut(q, ":"); ok {
		space, local = prefixes[p], l
		if space == "" {
			panic("rules: unknown prefix in " + q)
		}
	}
	n, ok := xmltree.Lookup(space, local)
	if !ok {
		panic("rules: name not in the UBL 2.1 schemas: " + q)
	}
	return n
}

type axis uint8

const (
	child axis = iota
	descendant
	parent
	self
)

type pathStep struct {
	axis axis
	name xmltree.Name
	any  bool
	pred Pred
}

// Path is a compiled location path of child steps ("cac:Party/cbc:Name"), with "..", ".", "*", a
// leading "/" (from the document element's parent, so "/*" is the document element) and "//"
// (descendants). Attributes are read with Ctx.Attr, not paths.
type Path struct {
	text   string
	rooted bool
	steps  []pathStep
	union  []*Path // "a | b": the alternatives, in the order written
}

// P compiles a path; it panics on a malformed one (rule tables are built at start-up).
func P(text string) *Path { return PWith(text, nil) }

// PWith compiles a path whose steps may name predicates: "cac:PartyTaxScheme[vat]/cbc:CompanyID".
func PWith(text string, preds map[string]Pred) *Path {
	if strings.Contains(text, "|") {
		u := &Path{text: text}
		for _, alt := range strings.Split(text, "|") {
			u.union = append(u.union, PWith(strings.TrimSpace(alt), preds))
		}
		return u
	}
	p := &Path{text: text}
	rest := text
	nextAxis := child
	switch {
	case strings.HasPrefix(rest, "//"):
		p.rooted, nextAxis, rest = true, descendant, rest[2:]
	case strings.HasPrefix(rest, "/"):
		p.rooted, rest = true, rest[1:]
	}
	for rest != "" {
		var s string
		s, rest, _ = strings.Cut(rest, "/")
		switch s {
		case "":
			nextAxis = descendant
			continue
		case "..":
			p.steps = append(p.steps, pathStep{axis: parent})
		case ".":
			p.steps = append(p.steps, pathStep{axis: self})
		case "*":
			p.steps = append(p.steps, pathStep{axis: nextAxis, any: true})
		default:
			st := pathStep{axis: nextAxis}
			if name, pred, ok := strings.Cut(s, "["); ok {
				s = name
				st.pred = preds[strings.TrimSuffix(pred, "]")]
				if st.pred == nil {
					panic("rules: unknown predicate " + pred + " in " + text)
				}
			}
			if s == "*" {
				st.any = true
			} else {
				st.name = MustName(s)
			}
			p.steps = append(p.steps, st)
		}
		nextAxis = child
	}
	return p
}

func (p *Path) String() string { return p.text }

// each calls fn for every node the path selects from n, in document order, until fn returns false.
func (p *Path) each(c *Ctx, n xmltree.NodeID, fn func(xmltree.NodeID) bool) {
	if p.union != nil {
		stop := false
		for _, alt := range p.union {
			alt.each(c, n, func(x xmltree.NodeID) bool { stop = !fn(x); return !stop })
			if stop {
				return
			}
		}
		return
	}
	start := n
	if p.rooted {
		start = xmltree.None // the document node
	}
	p.walk(c, start, 0, fn)
}

// walk applies step i from node n; None stands for the document node.
func (p *Path) walk(ctx *Ctx, n xmltree.NodeID, i int, fn func(xmltree.NodeID) bool) bool {
	t := ctx.t
	if i == len(p.steps) {
		return n == xmltree.None || fn(n)
	}
	st := &p.steps[i]
	matches := func(x xmltree.NodeID) bool {
		return (st.any || t.Name(x) == st.name) && (st.pred == nil || st.pred(ctx, x))
	}
	switch st.axis {
	case self:
		return p.walk(ctx, n, i+1, fn)
	case parent:
		if n == xmltree.None {
			return true
		}
		return p.walk(ctx, t.Parent(n), i+1, fn)
	case child:
		if n == xmltree.None {
			if r := t.Root(); r != xmltree.None && matches(r) {
				return p.walk(ctx, r, i+1, fn)
			}
			return true
		}
		for c := t.FirstChild(n); c != xmltree.None; c = t.NextSibling(c) {
			if matches(c) && !p.walk(ctx, c, i+1, fn) {
				return false
			}
		}
		return true
	default: // descendant
		var visit func(x xmltree.NodeID) bool
		visit = func(x xmltree.NodeID) bool {
			if matches(x) && !p.walk(ctx, x, i+1, fn) {
				return false
			}
			for c := t.FirstChild(x); c != xmltree.None; c = t.NextSibling(c) {
				if !visit(c) {
					return false
				}
			}
			return true
		}
		if n == xmltree.None {
			if r := t.Root(); r != xmltree.None {
				return visit(r)
			}
			return true
		}
		for c := t.FirstChild(n); c != xmltree.None; c = t.NextSibling(c) {
			if !visit(c) {
				return false
			}
		}
		return true
	}
}
