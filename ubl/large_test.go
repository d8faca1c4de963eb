package ubl

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// generatedInvoice writes a CIUS-PT invoice with the given number of lines (each 2 × 10.00 at the
// standard rate, 23 %, with a commitment line reference; every tenth with a 1.00 allowance), its totals
// consistent, so that it passes every rule.
func generatedInvoice(lines int) []byte {
	var b strings.Builder
	net := 20*lines - lines/10
	vat := fmt.Sprintf("%d.%02d", net*23/100, net*23%100)
	total := fmt.Sprintf("%d.%02d", net+net*23/100, net*23%100)
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
 xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
 xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
 <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:2.1.1</cbc:CustomizationID>
 <cbc:ID>FT 2026/%d</cbc:ID>
 <cbc:IssueDate>2026-11-21</cbc:IssueDate>
 <cbc:DueDate>2026-12-21</cbc:DueDate>
 <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
 <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
 <cbc:BuyerReference>REQ-77</cbc:BuyerReference>
 <cac:OrderReference><cbc:ID>ENC-2026-31</cbc:ID></cac:OrderReference>
 <cac:AccountingSupplierParty><cac:Party>
  <cac:PartyName><cbc:Name>Fornecedor Exemplo Lda</cbc:Name></cac:PartyName>
  <cac:PostalAddress><cbc:StreetName>Rua das Flores 10</cbc:StreetName><cbc:CityName>Lisboa</cbc:CityName>
   <cbc:PostalZone>1200-195</cbc:PostalZone><cac:Country><cbc:IdentificationCode>PT</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
  <cac:PartyTaxScheme><cbc:CompanyID>PT503504564</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
  <cac:PartyLegalEntity><cbc:RegistrationName>Fornecedor Exemplo Lda</cbc:RegistrationName></cac:PartyLegalEntity>
 </cac:Party></cac:AccountingSupplierParty>
 <cac:AccountingCustomerParty><cac:Party>
  <cac:PartyName><cbc:Name>Entidade Publica Exemplo</cbc:Name></cac:PartyName>
  <cac:PostalAddress><cbc:StreetName>Avenida da Liberdade 1</cbc:StreetName><cbc:CityName>Porto</cbc:CityName>
   <cbc:PostalZone>4000-001</cbc:PostalZone><cac:Country><cbc:IdentificationCode>PT</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
  <cac:PartyTaxScheme><cbc:CompanyID>PT600000052</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
  <cac:PartyLegalEntity><cbc:RegistrationName>Entidade Publica Exemplo</cbc:RegistrationName></cac:PartyLegalEntity>
 </cac:Party></cac:AccountingCustomerParty>
 <cac:Delivery><cbc:ActualDeliveryDate>2026-11-20</cbc:ActualDeliveryDate><cac:DeliveryLocation><cac:Address>
  <cbc:StreetName>Avenida da Liberdade 1</cbc:StreetName><cbc:CityName>Porto</cbc:CityName><cbc:PostalZone>4000-001</cbc:PostalZone>
  <cac:Country><cbc:IdentificationCode>PT</cbc:IdentificationCode></cac:Country></cac:Address></cac:DeliveryLocation></cac:Delivery>
 <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>
  <cac:PayeeFinancialAccount><cbc:ID>PT50000201231234567890154</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
 <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">%s</cbc:TaxAmount>
  <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">%d.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">%s</cbc:TaxAmount>
   <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>23.00</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory>
  </cac:TaxSubtotal></cac:TaxTotal>
 <cac:LegalMonetaryTotal>
  <cbc:LineExtensionAmount currencyID="EUR">%d.00</cbc:LineExtensionAmount>
  <cbc:TaxExclusiveAmount currencyID="EUR">%d.00</cbc:TaxExclusiveAmount>
  <cbc:TaxInclusiveAmount currencyID="EUR">%s</cbc:TaxInclusiveAmount>
  <cbc:PayableAmount currencyID="EUR">%s</cbc:PayableAmount>
 </cac:LegalMonetaryTotal>
`, lines, vat, net, vat, net, net, total, total)
	for i := 1; i <= lines; i++ {
		amount, allowance := "20.00", ""
		if i%10 == 0 {
			amount = "19.00"
			allowance = `<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator>
  <cbc:AllowanceChargeReasonCode>95</cbc:AllowanceChargeReasonCode><cbc:Amount currencyID="EUR">1.00</cbc:Amount></cac:AllowanceCharge>
  `
		}
		fmt.Fprintf(&b, ` <cac:InvoiceLine><cbc:ID>%d</cbc:ID>
  <cbc:InvoicedQuantity unitCode="C62">2.00</cbc:InvoicedQuantity>
  <cbc:LineExtensionAmount currencyID="EUR">%s</cbc:LineExtensionAmount>
  %s<cac:Item><cbc:Name>Artigo %d</cbc:Name><cac:SellersItemIdentification><cbc:ID>A-%d</cbc:ID></cac:SellersItemIdentification>
   <cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>23.00</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory>
   <cac:AdditionalItemProperty><cbc:Name>#LINEID@COMMITMENTLINEREFERENCE#</cbc:Name><cbc:Value>%d</cbc:Value></cac:AdditionalItemProperty>
  </cac:Item>
  <cac:Price><cbc:PriceAmount currencyID="EUR">10.00</cbc:PriceAmount></cac:Price>
 </cac:InvoiceLine>
`, i, amount, allowance, i, i, i)
	}
	b.WriteString("</Invoice>\n")
	return []byte(b.String())
}

func TestGeneratedInvoiceIsValid(t *testing.T) {
	for _, lines := range []int{1, 7, 500} {
		r := Validate(generatedInvoice(lines), Auto, "en")
		if r.Rejected() || len(r.Warning) != 0 {
			t.Fatalf("%d lines: xsd %v fatal %v warnings %v no verdict %q: %+v", lines, r.XSDValid, r.Fatal, r.Warning, r.NoVerdict, r.Findings)
		}
	}
	// The rules see the lines: a wrong line amount in the middle of a large invoice is caught.
	doc := strings.Replace(string(generatedInvoice(500)), "<cbc:ID>250</cbc:ID>\n  <cbc:InvoicedQuantity unitCode=\"C62\">2.00", "<cbc:ID>250</cbc:ID>\n  <cbc:InvoicedQuantity unitCode=\"C62\">3.00", 1)
	if r := Validate([]byte(doc), Auto, "en"); r.Fatal["DT-CIUS-PT-157"] != 1 || r.Fatal["DT-CIUS-PT-160"] != 0 {
		t.Fatal("a wrong line amount went unnoticed")
	}
}

// BenchmarkValidateLargeInvoice is full validation of a generated 5,000-line invoice (about 3.5 MB).
func BenchmarkValidateLargeInvoice(b *testing.B) {
	doc := generatedInvoice(5000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		r := Validate(doc, Auto, "en")
		if r.Rejected() {
			b.Fatalf("fatal findings: %+v", r.Findings[:min(3, len(r.Findings))])
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
