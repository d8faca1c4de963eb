package ubl

import (
	"testing"

	"github.com/shopspring/decimal"
)

func dp(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }

// invoiceWith is the generated one-line invoice with its lines replaced.
func invoiceWith(t *testing.T, lines ...Line) *Document {
	t.Helper()
	d, err := ReadBytes(generatedInvoice(1))
	if err != nil {
		t.Fatal(err)
	}
	for i := range lines {
		lines[i].ID = string(rune('1' + i))
		lines[i].Unit = "C62"
		lines[i].Item.Name = "Artigo"
	}
	d.Lines = lines
	return d
}

func vat(id, percent, code, reason string) TaxCategory {
	return TaxCategory{ID: id, Percent: dp(percent), ExemptionReasonCode: code, ExemptionReason: reason, Scheme: "VAT"}
}

// completeAndCheck completes the document, checks the amounts, and checks that the XML written from it
// passes every CIUS-PT rule.
func completeAndCheck(t *testing.T, d *Document, lineNets []string, taxes []string, payable string) {
	t.Helper()
	Complete(d)
	for i, want := range lineNets {
		if !d.Lines[i].NetAmount.Equal(decimal.RequireFromString(want)) {
			t.Fatalf("line %d net %s, want %s", i+1, d.Lines[i].NetAmount, want)
		}
	}
	if len(d.VATBreakdown) != len(taxes) {
		t.Fatalf("%d breakdowns, want %d: %+v", len(d.VATBreakdown), len(taxes), d.VATBreakdown)
	}
	for i, want := range taxes {
		if !d.VATBreakdown[i].Tax.Equal(decimal.RequireFromString(want)) {
			t.Fatalf("breakdown %d tax %s, want %s", i, d.VATBreakdown[i].Tax, want)
		}
	}
	if !d.Totals.Payable.Equal(decimal.RequireFromString(payable)) {
		t.Fatalf("payable %s, want %s", d.Totals.Payable, payable)
	}
	xml, err := Generate(d)
	if err != nil {
		t.Fatal(err)
	}
	if r := Validate(xml, Auto, "en"); r.Rejected() {
		first, _ := r.FirstFatal()
		t.Fatalf("generated XML refused: %v %s\n%s", r.Fatal, first.Message, xml)
	}
}

func TestCompleteLineAllowance(t *testing.T) {
	d := invoiceWith(t, Line{Quantity: decimal.NewFromInt(2), Price: Price{Net: dp("10")},
		AllowancesCharges: []AllowanceCharge{{Reason: "Desconto comercial", ReasonCode: "95", Amount: decimal.NewFromInt(5)}},
		Item:              Item{VAT: vat("S", "23", "", "")}})
	completeAndCheck(t, d, []string{"15"}, []string{"3.45"}, "18.45")
}

func TestCompletePriceDiscountAndBaseQuantity(t *testing.T) {
	d := invoiceWith(t,
		Line{Quantity: decimal.NewFromInt(2), Price: Price{Net: dp("5"), Discount: dp("5"), Gross: dp("10")}, Item: Item{VAT: vat("S", "23", "", "")}},
		Line{Quantity: decimal.NewFromInt(3), Price: Price{Net: dp("1234.56"), BaseQuantity: dp("1000")}, Item: Item{VAT: vat("S", "23", "", "")}})
	// 3 × 1234.56 ÷ 1000 = 3.70368 → 3.70; taxable 13.70 → VAT 3.151 → 3.15.
	completeAndCheck(t, d, []string{"10", "3.70"}, []string{"3.15"}, "16.85")
}

func TestCompleteExemptionAndRates(t *testing.T) {
	d := invoiceWith(t,
		Line{Quantity: decimal.NewFromInt(2), Price: Price{Net: dp("5")}, Item: Item{VAT: vat("E", "0", "M07", "Isento artigo 9.º do CIVA")}},
		Line{Quantity: decimal.NewFromInt(1), Price: Price{Net: dp("100")}, Item: Item{VAT: vat("S", "23", "", "")}},
		Line{Quantity: decimal.NewFromInt(4), Price: Price{Net: dp("2.50")}, Item: Item{VAT: vat("AA", "6", "", "")}},
		Line{Quantity: decimal.NewFromInt(1), Price: Price{Net: dp("7.77")}, Item: Item{VAT: vat("S", "23", "", "")}})
	completeAndCheck(t, d, []string{"10", "100", "10", "7.77"}, []string{"0", "24.79", "0.60"}, "153.16")
}

func TestCompleteDocumentAllowanceAndCharge(t *testing.T) {
	d := invoiceWith(t, Line{Quantity: decimal.NewFromInt(1), Price: Price{Net: dp("100")}, Item: Item{VAT: vat("S", "23", "", "")}})
	s := vat("S", "23", "", "")
	d.AllowancesCharges = []AllowanceCharge{
		{Reason: "Desconto comercial", ReasonCode: "95", Amount: decimal.RequireFromString("8.13"), VAT: &s},
		{Charge: true, Reason: "Portes", ReasonCode: "FC", Amount: decimal.RequireFromString("5.00"), VAT: &s},
	}
	d.Totals.Prepaid = dp("10")
	// taxable 100 − 8.13 + 5 = 96.87; VAT 22.28; with VAT 119.15; due 109.15.
	completeAndCheck(t, d, []string{"100"}, []string{"22.28"}, "109.15")
	if !d.Totals.AllowanceTotal.Equal(decimal.RequireFromString("8.13")) || !d.Totals.ChargeTotal.Equal(decimal.NewFromInt(5)) {
		t.Fatalf("allowance %s charge %s", d.Totals.AllowanceTotal, d.Totals.ChargeTotal)
	}
}

func TestCompleteCreditNote(t *testing.T) {
	d := invoiceWith(t, Line{Quantity: decimal.NewFromInt(1), Price: Price{Net: dp("40")}, Item: Item{VAT: vat("S", "23", "", "")}})
	d.Kind, d.TypeCode, d.DueDate = KindCreditNote, "381", ""
	d.PaymentMeans[0].DueDate = "2026-12-21"
	d.References.PrecedingInvoice = []PrecedingInvoice{{Number: "FT 2026/1", IssueDate: "2026-11-01"}}
	completeAndCheck(t, d, []string{"40"}, []string{"9.20"}, "49.20")
}
