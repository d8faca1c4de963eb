package ciuspt

import (
	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"
)

type (
	ctx  = rules.Ctx
	node = xmltree.NodeID
	test = rules.Test
)

var (
	P    = rules.P
	any_ = rules.ExistsAny
	not  = rules.Not
	and  = rules.And
	or   = rules.Or
)

// fatal is an assert with flag fatal; fatalR a report; warn an assert with flag warning.
func fatal(id string, t test, en, pt string) *rules.Assert {
	return rules.NewAssert(id, rules.Fatal, false, t, en, pt)
}

func fatalR(id string, t test, en, pt string) *rules.Assert {
	return rules.NewAssert(id, rules.Fatal, true, t, en, pt)
}

func warn(id string, t test, en, pt string) *rules.Assert {
	return rules.NewAssert(id, rules.Warning, false, t, en, pt)
}

// exist is exists(path) for each path; paths may name the predicates of preds.
func exist(paths ...string) test { return rules.ExistsWith(preds, paths...) }

func rule(context string, asserts ...*rules.Assert) *rules.Rule {
	return rules.NewRule(context, preds, asserts...)
}

// preds are the predicates contexts name in brackets.
var preds = map[string]rules.Pred{
	"allowance": rules.ChildEquals("cbc:ChargeIndicator", "false"),
	"charge":    rules.ChildEquals("cbc:ChargeIndicator", "true"),
	"aa":        rules.NormIn("cbc:ID", "AA", "RED", "INT"),
	"s":         rules.NormIn("cbc:ID", "S", "NOR"),
	"e":         rules.NormIn("cbc:ID", "E", "ISE"),
	"transfer":  rules.EqIn("cbc:PaymentMeansCode", "30", "58"),
	"itemAA":    rules.EqIn("cac:ClassifiedTaxCategory/cbc:ID", "AA"),
	"itemS":     rules.EqIn("cac:ClassifiedTaxCategory/cbc:ID", "S", "NOR"),
	// The CreditNote alternative of BR-CIUS-PT-15's context compares the Item's own cbc:ID with 'NOR'.
	"itemSCN": func(c *rules.Ctx, n xmltree.NodeID) bool {
		return c.Eq(n, pClassifiedID, "S") || c.NormOf(n, pID) == "NOR"
	},
	"itemE":  rules.EqIn("cac:ClassifiedTaxCategory/cbc:ID", "E", "ISE"),
	"vat":    rules.ChildEquals("cac:TaxScheme/cbc:ID", "VAT"),
	"object": rules.ChildEquals("cbc:DocumentTypeCode", "130"),
	"notVAT": func(c *rules.Ctx, n xmltree.NodeID) bool {
		return c.Any(n, pSchemeID, func(x node) bool { return c.Str(x) != "VAT" })
	},
}

var (
	pID           = P("cbc:ID")
	pClassifiedID = P("cac:ClassifiedTaxCategory/cbc:ID")
)

// filled is the CIUS-PT report shape "exists(group) and not(group/child)": a group that is present must
// carry its child.
func filled(group, child string) test {
	g, ch := P(group), P(group+"/"+child)
	return func(c *ctx, n node) bool { return c.Exists(n, g) && !c.Exists(n, ch) }
}

// hundred is 1.00, the tolerance of eSPap's arithmetic rules.
var tolerance = rules.D("1.00")
