package peppol

import (
	"fmt"
	"math"

	"einvoice/ubl/rules"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

var (
	two               = rules.D("0.02")
	pPayable          = P("cbc:PayableAmount")
	pLineExtension    = P("cbc:LineExtensionAmount")
	pPrepaid          = P("cbc:PrepaidAmount")
	pRounding         = P("cbc:PayableRoundingAmount")
	pTaxInclusive     = P("cbc:TaxInclusiveAmount")
	pTaxExclusive     = P("cbc:TaxExclusiveAmount")
	pAllowanceTotal   = P("cbc:AllowanceTotalAmount")
	pChargeTotal      = P("cbc:ChargeTotalAmount")
	pLineAmounts      = P("/ord:Order/cac:OrderLine/cac:LineItem/cbc:LineExtensionAmount")
	pOrderACs         = P("/ord:Order/cac:AllowanceCharge")
	pOrderTaxTotal    = P("/ord:Order/cac:TaxTotal")
	pOrderTaxAmount   = P("/ord:Order/cac:TaxTotal/cbc:TaxAmount")
	pChargeIndicator  = P("cbc:ChargeIndicator")
	pACs              = P("cac:AllowanceCharge")
	pQuantity         = P("cbc:Quantity")
	pLinePriceAmount  = P("cac:Price/cbc:PriceAmount")
	pLineBaseQuantity = P("cac:Price/cbc:BaseQuantity")
	pAllLineItems     = P("//cac:LineItem") // the key k_lineId indexes every line item
	pMultiplierFactor = P("cbc:MultiplierFactorNumeric")
	pAllowanceBaseAmt = P("cbc:BaseAmount")
	pAllowanceAmount  = P("cbc:Amount")
)

// dec is a lazily computed optional decimal (an XPath xs:decimal? variable).
type dec struct {
	v  rules.Dec
	ok bool
}

func (d dec) truthy() bool { return d.ok && !d.v.IsZero() } // effective boolean value

// optional is xs:decimal(p), or the empty sequence.
func optional(c *ctx, n node, p *rules.Path) dec { v, ok := c.DecOf(n, p); return dec{v, ok} }

// orDefault is "if (p) then xs:decimal(p) else def".
func orDefault(c *ctx, n node, p *rules.Path, def int64) dec {
	if !c.Exists(n, p) {
		return dec{rules.Int(def), true}
	}
	return optional(c, n, p)
}

// roundedSum is "if (ACs with the indicator) then round(sum(their amounts) * 100) div 100 else 0", the
// indicator compared after normalize-space.
func roundedSum(c *ctx, n node, acs *rules.Path, indicator string) dec {
	total, any := rules.Dec{}, false
	for _, ac := range c.Nodes(n, acs) {
		if c.NormOf(ac, pChargeIndicator) != indicator {
			continue
		}
		any = true
		for _, a := range c.Nodes(ac, pAllowanceAmount) {
			total = total.Add(c.Dec(a))
		}
	}
	if !any {
		return dec{rules.Int(0), true}
	}
	return dec{total.Round2(), true}
}

func eq(a, b dec) bool { return a.ok && b.ok && a.v.Equal(b.v) }

// totalsAsserts are the checks of the anticipated monetary total (R006–R011, R016, R017).
func totalsAsserts() []*rules.Assert {
	payable := func(c *ctx, n node) dec {
		return rules.Local(c, "payable", func() dec { return optional(c, n, pPayable) })
	}
	lineExt := func(c *ctx, n node) dec {
		return rules.Local(c, "lineExt", func() dec { return optional(c, n, pLineExtension) })
	}
	allowances := func(c *ctx, n node) dec {
		return rules.Local(c, "allowanceTotal", func() dec { return orDefault(c, n, pAllowanceTotal, 0) })
	}
	charges := func(c *ctx, n node) dec {
		return rules.Local(c, "chargeTotal", func() dec { return orDefault(c, n, pChargeTotal, 0) })
	}
	taxIncl := func(c *ctx, n node) dec {
		return rules.Local(c, "taxIncl", func() dec { return optional(c, n, pTaxInclusive) })
	}
	taxExcl := func(c *ctx, n node) dec {
		return rules.Local(c, "taxExcl", func() dec {
			if c.Exists(n, pTaxExclusive) {
				return optional(c, n, pTaxExclusive)
			}
			return derivedExclusive(lineExt(c, n), allowances(c, n), charges(c, n))
		})
	}
	sumLines := func(c *ctx, n node) dec {
		return rules.Doc(c, "sumLines", func() dec {
			if !c.Exists(n, pLineAmounts) {
				return dec{rules.Int(0), true}
			}
			return dec{c.Sum(n, pLineAmounts).Round2(), true}
		})
	}
	nonNegative := func(d dec) bool { return d.ok && d.v.Sign() >= 0 }
	return []*rules.Assert{
		fatal("PEPPOL-T01-R006", func(c *ctx, n node) bool { return nonNegative(payable(c, n)) },
			"Expected total amount for payment SHALL NOT be negative.", "O valor total a pagar não pode ser negativo."),
		fatal("PEPPOL-T01-R007", func(c *ctx, n node) bool { return nonNegative(lineExt(c, n)) },
			"Expected total sum of line amounts SHALL NOT be negative.", "A soma dos valores das linhas não pode ser negativa."),
		fatal("PEPPOL-T01-R008", func(c *ctx, n node) bool { return eq(lineExt(c, n), sumLines(c, n)) },
			"Total of line amounts SHALL equal the sum of the order line amounts.", "O total das linhas tem de ser igual à soma dos valores das linhas."),
		fatal("PEPPOL-T01-R009", func(c *ctx, n node) bool {
			return eq(allowances(c, n), rules.Doc(c, "sumAllowance", func() dec { return roundedSum(c, n, pOrderACs, "false") }))
		}, "Total allowances SHALL equal the sum of document-level allowances.", "O total dos descontos tem de ser igual à soma dos descontos do documento."),
		fatal("PEPPOL-T01-R010", func(c *ctx, n node) bool {
			return eq(charges(c, n), rules.Doc(c, "sumCharge", func() dec { return roundedSum(c, n, pOrderACs, "true") }))
		}, "Total charges SHALL equal the sum of document-level charges.", "O total dos encargos tem de ser igual à soma dos encargos do documento."),
		fatal("PEPPOL-T01-R011", func(c *ctx, n node) bool {
			return eq(taxExcl(c, n), derivedExclusive(lineExt(c, n), allowances(c, n), charges(c, n)))
		}, "Total without tax SHALL equal line total minus allowances plus charges.", "O total sem imposto tem de ser o total das linhas menos descontos mais encargos."),
		fatal("PEPPOL-T01-R016", func(c *ctx, n node) bool {
			incl := taxIncl(c, n)
			if !incl.truthy() {
				return true
			}
			due := payable(c, n)
			if !due.ok { // an empty left side: the right one, and its paid and rounding amounts, are not read
				return false
			}
			prepaid, rounding := orDefault(c, n, pPrepaid, 0), orDefault(c, n, pRounding, 0)
			return eq(due, dec{incl.v.Sub(prepaid.v).Add(rounding.v), prepaid.ok && rounding.ok})
		}, "Amount for payment SHALL equal total with tax minus prepaid plus rounding.", "O valor a pagar tem de ser o total com imposto menos o pago mais o arredondamento."),
		fatal("PEPPOL-T01-R017", func(c *ctx, n node) bool {
			incl := taxIncl(c, n)
			if !incl.truthy() || !c.Exists(n, pOrderTaxTotal) {
				return true
			}
			excl := taxExcl(c, n)
			if !excl.ok { // the sum is empty: the tax amount is not read
				return false
			}
			tax := rules.Doc(c, "taxAmount", func() dec { return orDefault(c, n, pOrderTaxAmount, 0) })
			return tax.ok && incl.v.Equal(excl.v.Add(tax.v))
		}, "Total with tax SHALL equal total without tax plus the tax total.", "O total com imposto tem de ser o total sem imposto mais o imposto."),
	}
}

func derivedExclusive(lineExt, allowances, charges dec) dec {
	if !lineExt.ok || !allowances.ok || !charges.ok {
		return dec{}
	}
	return dec{lineExt.v.Sub(allowances.v).Add(charges.v), true}
}

// slack is u:slack(exp, val, slack): |exp - val| <= slack.
func slack(exp, val, s rules.Dec) bool { return !exp.Add(s).Less(val) && exp.Sub(s).LessEq(val) }

// lineAsserts are the checks of an order line item (R024, R025, R001, R004, R013).
func lineAsserts() []*rules.Assert {
	return []*rules.Assert{
		fatal("PEPPOL-T01-R024", func(c *ctx, n node) bool {
			lineExt := orDefault(c, n, pLineExtension, 0)
			qty := orDefault(c, n, pQuantity, 1)
			price := orDefault(c, n, pLinePriceAmount, 0)
			base := dec{rules.Int(1), true}
			if c.Exists(n, pLineBaseQuantity) {
				if b := optional(c, n, pLineBaseQuantity); b.ok && !b.v.IsZero() {
					base = b
				}
			}
			charges := roundedSum(c, n, pACs, "true")
			allowances := roundedSum(c, n, pACs, "false")
			if !lineExt.ok || !qty.ok || !price.ok {
				return false
			}
			computed := qty.v.Mul(price.v.Div(base.v)).Add(charges.v).Sub(allowances.v)
			return slack(lineExt.v, computed, two)
		}, "Line amount SHALL equal quantity times net price divided by base quantity, plus charges, minus allowances.",
			"O valor da linha tem de ser a quantidade vezes o preço líquido a dividir pela quantidade base, mais encargos, menos descontos."),
		fatal("PEPPOL-T01-R025", func(c *ctx, n node) bool {
			if !c.Exists(n, pLineBaseQuantity) {
				return true
			}
			b := optional(c, n, pLineBaseQuantity)
			return b.ok && b.v.Sign() > 0
		}, "Base quantity SHALL be greater than zero.", "A quantidade base tem de ser maior que zero."),
		fatal("PEPPOL-T01-R001", uniqueLineID,
			"Each order line SHALL have a unique identifier.", "Cada linha da encomenda tem de ter um identificador único."),
		fatal("PEPPOL-T01-R004", func(c *ctx, n node) bool { return c.Number(n, pQuantity) >= 0 },
			"Quantities SHALL NOT be negative.", "As quantidades não podem ser negativas."),
		warn("PEPPOL-T01-R013", exist("cbc:Quantity"),
			"An order line SHOULD contain the ordered quantity.", "A linha da encomenda deve conter a quantidade."),
	}
}

// uniqueLineID is count(key('k_lineId', cbc:ID)) = 1: exactly one line item has one of this line's
// identifiers (a line item with two of them counts once).
func uniqueLineID(c *ctx, n node) bool {
	byID := rules.Doc(c, "lineIDs", func() map[string][]node {
		m := map[string][]node{}
		for _, li := range c.Nodes(n, pAllLineItems) {
			for _, id := range c.Nodes(li, pID) {
				v := c.Str(id)
				if items := m[v]; len(items) == 0 || items[len(items)-1] != li {
					m[v] = append(items, li)
				}
			}
		}
		return m
	})
	var found node
	count := 0
	for _, id := range c.Nodes(n, pID) {
		for _, li := range byID[c.Str(id)] {
			if count == 0 || li != found {
				if count++; count > 1 {
					return false
				}
				found = li
			}
		}
	}
	return count == 1
}

// allowanceAmountMatches is R022: with a percentage and a base, the amount (0 when absent) is base ×
// percentage ÷ 100 within 0.02.
func allowanceAmountMatches(c *ctx, n node) bool {
	if !c.Exists(n, pMultiplierFactor) || !c.Exists(n, pAllowanceBaseAmt) {
		return true
	}
	amount := rules.Int(0)
	if c.Exists(n, pAllowanceAmount) {
		a, ok := c.DecOf(n, pAllowanceAmount)
		if !ok {
			return false
		}
		amount = a
	}
	base, _ := c.DecOf(n, pAllowanceBaseAmt)
	factor, _ := c.DecOf(n, pMultiplierFactor)
	return slack(amount, base.Mul(factor).Div(rules.Int(100)), two)
}

// castableDate is "castable as xs:date" for the ten-character form the caller also requires: a valid
// calendar date YYYY-MM-DD (year 0000 included, as XPath 3.1 allows).
func castableDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	year := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	month, day := int(s[5]-'0')*10+int(s[6]-'0'), int(s[8]-'0')*10+int(s[9]-'0')
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	days := []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// parseNumber is XPath number(): false when the value is NaN.
func parseNumber(s string) (float64, bool) {
	f, ok := rules.ParseDouble(s)
	return f, ok && !math.IsNaN(f)
}
