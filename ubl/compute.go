package ubl

import (
	"github.com/shopspring/decimal"
)

// Complete derives what an invoice's lines and document-level allowances and charges imply, the way
// EN16931 computes it, with exact decimals rounded to cents where the standard rounds:
//   - each line's net amount (BT-131): quantity × net price ÷ base quantity, rounded, plus the line's
//     charges and minus its allowances;
//   - the VAT breakdown (BG-23), one entry per VAT category, rate and exemption reason, in the order
//     they first appear: taxable amount = its lines plus its document charges minus its document
//     allowances; VAT = taxable × rate, rounded;
//   - the totals (BG-22): line total, allowances, charges, total without VAT, VAT, total with VAT, and
//     the amount due = total with VAT − paid amount + rounding amount.
//
// Withholding taxes do not change the totals. Complete overwrites the amounts it derives. An exempt
// line also gets the item attributes with which CIUS-PT carries its exemption reason (BR-CIUS-PT-18).
func Complete(d *Document) {
	hundred := decimal.NewFromInt(100)
	lineNet := decimal.Zero
	for i := range d.Lines {
		l := &d.Lines[i]
		addExemptionProperties(&l.Item)
		net := decimal.Zero
		if l.Price.Net != nil {
			net = l.Quantity.Mul(*l.Price.Net)
			if b := l.Price.BaseQuantity; b != nil && b.Sign() > 0 {
				net = net.Div(*b)
			}
		}
		net = net.Round(2)
		for _, ac := range l.AllowancesCharges {
			if ac.Charge {
				net = net.Add(ac.Amount.Round(2))
			} else {
				net = net.Sub(ac.Amount.Round(2))
			}
		}
		l.NetAmount = &net
		lineNet = lineNet.Add(net)
	}

	type group struct {
		cat     TaxCategory
		taxable decimal.Decimal
	}
	var groups []*group
	groupOf := func(c TaxCategory) *group {
		for _, g := range groups {
			if sameBreakdown(g.cat, c) {
				return g
			}
		}
		g := &group{cat: TaxCategory{ID: c.ID, Percent: c.Percent, ExemptionReasonCode: c.ExemptionReasonCode,
			ExemptionReason: c.ExemptionReason, Scheme: c.Scheme}}
		groups = append(groups, g)
		return g
	}
	for _, l := range d.Lines {
		g := groupOf(l.Item.VAT)
		g.taxable = g.taxable.Add(*l.NetAmount)
	}
	allowances, charges := decimal.Zero, decimal.Zero
	for _, ac := range d.AllowancesCharges {
		amount := ac.Amount.Round(2)
		var g *group
		if ac.VAT != nil {
			g = groupOf(*ac.VAT)
		}
		if ac.Charge {
			charges = charges.Add(amount)
			if g != nil {
				g.taxable = g.taxable.Add(amount)
			}
		} else {
			allowances = allowances.Add(amount)
			if g != nil {
				g.taxable = g.taxable.Sub(amount)
			}
		}
	}

	taxTotal := decimal.Zero
	d.VATBreakdown = d.VATBreakdown[:0]
	for _, g := range groups {
		tax := decimal.Zero
		if g.cat.Percent != nil {
			tax = g.taxable.Mul(*g.cat.Percent).Div(hundred).Round(2)
		}
		taxTotal = taxTotal.Add(tax)
		d.VATBreakdown = append(d.VATBreakdown, VATBreakdown{Taxable: g.taxable, Tax: tax, Category: g.cat})
	}
	d.TaxTotal = &taxTotal

	t := &d.Totals
	t.LineNet = lineNet
	exclusive := lineNet.Sub(allowances).Add(charges)
	inclusive := exclusive.Add(taxTotal)
	t.TaxExclusive, t.TaxInclusive = &exclusive, &inclusive
	t.AllowanceTotal, t.ChargeTotal = &allowances, &charges
	prepaid, rounding := decimal.Zero, decimal.Zero
	if t.Prepaid != nil {
		prepaid = *t.Prepaid
	}
	if t.Rounding != nil {
		rounding = *t.Rounding
	}
	t.Prepaid, t.Rounding = &prepaid, &rounding
	t.Payable = inclusive.Sub(prepaid).Add(rounding)
}

// sameBreakdown tells whether two categories share a VAT breakdown: same category, same rate, same
// exemption reason code.
func sameBreakdown(a, b TaxCategory) bool {
	if a.ID != b.ID || a.ExemptionReasonCode != b.ExemptionReasonCode || (a.Percent == nil) != (b.Percent == nil) {
		return false
	}
	return a.Percent == nil || a.Percent.Equal(*b.Percent)
}

// The item attribute names with which CIUS-PT repeats an exempt line's exemption reason.
const (
	PropExemptionCode   = "#TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY#"
	PropExemptionReason = "#TAXEXEMPTIONREASON@CLASSIFIEDTAXCATEGORY#"
)

// exempt tells the VAT categories CIUS-PT treats as exempt.
func exempt(category string) bool { return category == "E" || category == "ISE" }

func addExemptionProperties(it *Item) {
	if !exempt(it.VAT.ID) {
		return
	}
	has := map[string]bool{}
	for _, p := range it.Properties {
		has[p.Name] = true
	}
	if !has[PropExemptionCode] && it.VAT.ExemptionReasonCode != "" {
		it.Properties = append(it.Properties, Property{Name: PropExemptionCode, Value: it.VAT.ExemptionReasonCode})
	}
	if !has[PropExemptionReason] && it.VAT.ExemptionReason != "" {
		it.Properties = append(it.Properties, Property{Name: PropExemptionReason, Value: it.VAT.ExemptionReason})
	}
}
