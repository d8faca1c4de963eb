package ubl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"einvoice/ubl/ubltest"
)

func TestReadGeneratedInvoice(t *testing.T) {
	d, err := ReadBytes(generatedInvoice(12))
	if err != nil {
		t.Fatal(err)
	}
	dec := decimal.RequireFromString
	switch {
	case d.Kind != KindInvoice || d.Number != "FT 2026/12" || d.IssueDate != "2026-11-21" || d.TypeCode != "380" || d.Currency != "EUR":
		t.Fatalf("header %+v", d)
	case d.Seller.VATID != "PT503504564" || d.Seller.LegalName != "Fornecedor Exemplo Lda" || d.Seller.Address.Country != "PT":
		t.Fatalf("seller %+v", d.Seller)
	case d.Buyer.VATID != "PT600000052" || d.Buyer.Address.PostalZone != "4000-001":
		t.Fatalf("buyer %+v", d.Buyer)
	case d.Delivery == nil || d.Delivery.Address.City != "Porto" || d.References.Order != "ENC-2026-31":
		t.Fatalf("delivery %+v references %+v", d.Delivery, d.References)
	case len(d.PaymentMeans) != 1 || d.PaymentMeans[0].Code != "30" || d.PaymentMeans[0].Accounts[0].ID != "PT50000201231234567890154":
		t.Fatalf("payment %+v", d.PaymentMeans)
	case len(d.VATBreakdown) != 1 || d.VATBreakdown[0].Category.ID != "S" || !d.VATBreakdown[0].Category.Percent.Equal(dec("23")):
		t.Fatalf("breakdown %+v", d.VATBreakdown)
	case !d.Totals.LineNet.Equal(dec("239")) || !d.TaxTotal.Equal(dec("54.97")) || !d.Totals.Payable.Equal(dec("293.97")):
		t.Fatalf("totals %+v tax %v", d.Totals, d.TaxTotal)
	case len(d.Lines) != 12:
		t.Fatalf("%d lines", len(d.Lines))
	}
	l := d.Lines[9]
	if l.ID != "10" || !l.Quantity.Equal(dec("2")) || l.Unit != "C62" || !l.NetAmount.Equal(dec("19")) ||
		len(l.AllowancesCharges) != 1 || l.AllowancesCharges[0].Charge || !l.AllowancesCharges[0].Amount.Equal(dec("1")) ||
		l.Item.Name != "Artigo 10" || l.Item.VAT.ID != "S" || len(l.Item.Properties) != 1 || l.Item.Properties[0].Value != "10" ||
		!l.Price.Net.Equal(dec("10")) {
		t.Fatalf("line %+v", l)
	}
}

func TestReadRefusesMalformedAmounts(t *testing.T) {
	doc := []byte(invoiceStart + `<cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">12,50</cbc:PayableAmount></cac:LegalMonetaryTotal></Invoice>`)
	if _, err := ReadBytes(doc); err == nil {
		t.Fatal("a comma decimal was read")
	}
	if _, err := ReadBytes([]byte(`<Despatch xmlns="urn:x"/>`)); err == nil {
		t.Fatal("a foreign document was read")
	}
}

// Every document the official validators accept reads into a model whose lines add up to the line
// total the rules checked (BR-CO-10).
func TestReadAcceptedCorpusDocuments(t *testing.T) {
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	read := 0
	for _, p := range profiles {
		for _, e := range p.Expected {
			if !e.XSDValid || len(e.Fatal) > 0 || e.Error != "" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
			if err != nil {
				t.Fatal(err)
			}
			d, err := ReadBytes(data)
			if err != nil {
				t.Fatalf("%s: %v", e.File, err)
			}
			if e.Root == nil || string(d.Kind) != *e.Root || d.Number == "" || len(d.Lines) == 0 {
				t.Fatalf("%s: kind %s number %q lines %d", e.File, d.Kind, d.Number, len(d.Lines))
			}
			if d.Kind != KindOrder {
				sum := decimal.Zero
				for _, l := range d.Lines {
					sum = sum.Add(*l.NetAmount)
				}
				if !sum.Equal(d.Totals.LineNet) {
					t.Fatalf("%s: lines add up to %s, the line total is %s", e.File, sum, d.Totals.LineNet)
				}
			}
			read++
		}
	}
	t.Logf("%d accepted documents read", read)
}

// Every accepted corpus invoice and credit note read into the model and written back passes the schema
// and the rules: the model holds what the rules need, and Generate writes it in the schema's order.
func TestGenerateRoundTripsAcceptedCorpusDocuments(t *testing.T) {
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	n := 0
	for _, e := range profiles[0].Expected {
		if !e.XSDValid || len(e.Fatal) > 0 || e.Error != "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(profiles[0].Cases, e.File))
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Generate(d)
		if err != nil {
			t.Fatal(err)
		}
		if r := Validate(out, Auto, "en"); r.Rejected() {
			first, _ := r.FirstFatal()
			t.Errorf("%s: written back, refused: %v %v (%s)", e.File, r.Fatal, r.Service, first.Message)
			continue
		}
		again, err := ReadBytes(out)
		if err != nil || again.Number != d.Number || len(again.Lines) != len(d.Lines) || !again.Totals.Payable.Equal(d.Totals.Payable) {
			t.Errorf("%s: read back differs: %v", e.File, err)
		}
		n++
	}
	t.Logf("%d documents round-tripped", n)
}
