package ubl

import (
	"bytes"
	"cmp"
	"errors"
	"strings"
	"unicode/utf8"

	"einvoice/ubl/xsd"

	"github.com/shopspring/decimal"
)

// Generate writes an Invoice or a CreditNote as UBL 2.1 XML, elements in the schema's order, empty
// values left out. It writes what the model holds and computes nothing: Complete derives amounts first.
// Amounts are written with two decimals, quantities with two or three, prices and line amounts as
// given (CIUS-PT allows up to eight), rates with two.
func Generate(d *Document) ([]byte, error) {
	var root, ns string
	switch d.Kind {
	case KindInvoice:
		root, ns = "Invoice", xsd.NSInvoice
	case KindCreditNote:
		root, ns = "CreditNote", xsd.NSCreditNote
	default:
		return nil, errors.New("ubl: only invoices and credit notes are generated")
	}
	w := &xmlWriter{ccy: d.Currency}
	w.buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.buf.WriteString("<" + root + ` xmlns="` + ns + `"` +
		` xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"` +
		` xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">` + "\n")
	w.depth = 1
	credit := d.Kind == KindCreditNote

	w.leaf("cbc:CustomizationID", d.CustomizationID)
	w.leaf("cbc:ProfileID", d.ProfileID)
	w.leaf("cbc:ID", d.Number)
	w.leaf("cbc:IssueDate", d.IssueDate)
	if credit {
		w.leaf("cbc:TaxPointDate", d.TaxPointDate)
		w.leaf("cbc:CreditNoteTypeCode", d.TypeCode)
	} else {
		w.leaf("cbc:DueDate", d.DueDate)
		w.leaf("cbc:InvoiceTypeCode", d.TypeCode)
	}
	for _, n := range d.Notes {
		w.leaf("cbc:Note", n)
	}
	if !credit {
		w.leaf("cbc:TaxPointDate", d.TaxPointDate)
	}
	w.leaf("cbc:DocumentCurrencyCode", d.Currency)
	w.leaf("cbc:TaxCurrencyCode", d.TaxCurrency)
	w.leaf("cbc:AccountingCost", d.AccountingCost)
	w.leaf("cbc:BuyerReference", d.BuyerReference)
	w.period("cac:InvoicePeriod", d.Period)
	ref := d.References
	if ref.Order != "" || ref.SalesOrder != "" {
		w.open("cac:OrderReference")
		w.leaf("cbc:ID", orNA(ref.Order))
		w.leaf("cbc:SalesOrderID", ref.SalesOrder)
		w.close("cac:OrderReference")
	}
	for _, p := range ref.PrecedingInvoice {
		w.open("cac:BillingReference")
		w.open("cac:InvoiceDocumentReference")
		w.leaf("cbc:ID", p.Number)
		w.leaf("cbc:IssueDate", p.IssueDate)
		w.close("cac:InvoiceDocumentReference")
		w.close("cac:BillingReference")
	}
	w.idRef("cac:DespatchDocumentReference", ref.Despatch)
	w.idRef("cac:ReceiptDocumentReference", ref.Receipt)
	if !credit {
		w.idRef("cac:OriginatorDocumentReference", ref.Tender)
	}
	w.idRef("cac:ContractDocumentReference", ref.Contract)
	for _, a := range d.Attachments {
		w.attachment(a)
	}
	if credit {
		w.idRef("cac:OriginatorDocumentReference", ref.Tender)
	}
	w.idRef("cac:ProjectReference", ref.Project)

	w.party("cac:AccountingSupplierParty", &d.Seller, true)
	w.party("cac:AccountingCustomerParty", &d.Buyer, true)
	if d.Payee != nil {
		w.party("cac:PayeeParty", d.Payee, false)
	}
	if d.TaxRepresentative != nil {
		w.party("cac:TaxRepresentativeParty", d.TaxRepresentative, false)
	}
	if d.Delivery != nil {
		w.delivery(d.Delivery)
	}
	for _, pm := range d.PaymentMeans {
		w.paymentMeans(pm)
	}
	if d.PaymentTerms != "" {
		w.open("cac:PaymentTerms")
		w.leaf("cbc:Note", d.PaymentTerms)
		w.close("cac:PaymentTerms")
	}
	for _, ac := range d.AllowancesCharges {
		w.allowanceCharge(ac)
	}
	if d.TaxTotal != nil {
		w.open("cac:TaxTotal")
		w.amount("cbc:TaxAmount", *d.TaxTotal)
		for _, b := range d.VATBreakdown {
			w.open("cac:TaxSubtotal")
			w.amount("cbc:TaxableAmount", b.Taxable)
			w.amount("cbc:TaxAmount", b.Tax)
			w.category("cac:TaxCategory", b.Category)
			w.close("cac:TaxSubtotal")
		}
		w.close("cac:TaxTotal")
	}
	if d.TaxTotalInTaxCcy != nil && d.TaxCurrency != "" {
		w.open("cac:TaxTotal")
		w.leafAttr("cbc:TaxAmount", fixed(*d.TaxTotalInTaxCcy, 2), "currencyID", d.TaxCurrency)
		w.close("cac:TaxTotal")
	}
	w.totals(d.Totals)
	for _, l := range d.Lines {
		w.line(l, credit)
	}
	w.buf.WriteString("</" + root + ">\n")
	return w.buf.Bytes(), nil
}

func orNA(s string) string {
	if s == "" {
		return "NA"
	}
	return s
}

func (w *xmlWriter) idRef(elem, id string) {
	if id == "" {
		return
	}
	w.open(elem)
	w.leaf("cbc:ID", id)
	w.close(elem)
}

func (w *xmlWriter) period(elem string, p *Period) {
	if p == nil || p.Start == "" && p.End == "" && p.DescriptionCode == "" {
		return
	}
	w.open(elem)
	w.leaf("cbc:StartDate", p.Start)
	w.leaf("cbc:EndDate", p.End)
	w.leaf("cbc:DescriptionCode", p.DescriptionCode)
	w.close(elem)
}

func (w *xmlWriter) attachment(a Attachment) {
	w.open("cac:AdditionalDocumentReference")
	w.leafAttr("cbc:ID", orNA(a.ID), "schemeID", a.IDScheme)
	w.leaf("cbc:DocumentTypeCode", a.TypeCode)
	w.leaf("cbc:DocumentDescription", a.Description)
	if a.Content != "" || a.URI != "" {
		w.open("cac:Attachment")
		if a.Content != "" {
			w.leafAttr("cbc:EmbeddedDocumentBinaryObject", a.Content, "mimeCode", a.MIMEType, "filename", a.Filename)
		}
		if a.URI != "" {
			w.open("cac:ExternalReference")
			w.leaf("cbc:URI", a.URI)
			w.close("cac:ExternalReference")
		}
		w.close("cac:Attachment")
	}
	w.close("cac:AdditionalDocumentReference")
}

// party writes a party; wrapped parties (supplier, customer) have their Party inside the role element.
func (w *xmlWriter) party(elem string, p *Party, wrapped bool) {
	w.open(elem)
	if wrapped {
		w.open("cac:Party")
	}
	if p.EndpointID != nil {
		w.leafAttr("cbc:EndpointID", p.EndpointID.Value, "schemeID", p.EndpointID.Scheme)
	}
	for _, id := range p.Identifiers {
		w.open("cac:PartyIdentification")
		w.leafAttr("cbc:ID", id.Value, "schemeID", id.Scheme)
		w.close("cac:PartyIdentification")
	}
	if p.Name != "" {
		w.open("cac:PartyName")
		w.leaf("cbc:Name", p.Name)
		w.close("cac:PartyName")
	}
	w.address("cac:PostalAddress", p.Address)
	if p.VATID != "" {
		w.open("cac:PartyTaxScheme")
		w.leaf("cbc:CompanyID", p.VATID)
		w.open("cac:TaxScheme")
		w.leaf("cbc:ID", "VAT")
		w.close("cac:TaxScheme")
		w.close("cac:PartyTaxScheme")
	}
	if p.TaxRegistration != "" {
		w.open("cac:PartyTaxScheme")
		w.leaf("cbc:CompanyID", p.TaxRegistration)
		w.open("cac:TaxScheme")
		w.leaf("cbc:ID", "FC")
		w.close("cac:TaxScheme")
		w.close("cac:PartyTaxScheme")
	}
	if p.LegalName != "" || p.LegalID != nil || p.LegalForm != "" {
		w.open("cac:PartyLegalEntity")
		w.leaf("cbc:RegistrationName", p.LegalName)
		if p.LegalID != nil {
			w.leafAttr("cbc:CompanyID", p.LegalID.Value, "schemeID", p.LegalID.Scheme)
		}
		w.leaf("cbc:CompanyLegalForm", p.LegalForm)
		w.close("cac:PartyLegalEntity")
	}
	c := p.Contact
	if c != (Contact{}) {
		w.open("cac:Contact")
		w.leaf("cbc:Name", c.Name)
		w.leaf("cbc:Telephone", c.Telephone)
		w.leaf("cbc:Telefax", c.Telefax)
		w.leaf("cbc:ElectronicMail", c.Email)
		w.close("cac:Contact")
	}
	if wrapped {
		w.close("cac:Party")
	}
	w.close(elem)
}

func (w *xmlWriter) address(elem string, a Address) {
	if a == (Address{}) {
		return
	}
	w.open(elem)
	w.leaf("cbc:StreetName", a.Street)
	w.leaf("cbc:AdditionalStreetName", a.AdditionalStreet)
	w.leaf("cbc:BuildingName", a.BuildingName)
	w.leaf("cbc:BuildingNumber", a.BuildingNumber)
	w.leaf("cbc:CityName", a.City)
	w.leaf("cbc:PostalZone", a.PostalZone)
	w.leaf("cbc:CountrySubentity", a.Subdivision)
	if a.Line != "" {
		w.open("cac:AddressLine")
		w.leaf("cbc:Line", a.Line)
		w.close("cac:AddressLine")
	}
	if a.Country != "" {
		w.open("cac:Country")
		w.leaf("cbc:IdentificationCode", a.Country)
		w.close("cac:Country")
	}
	w.close(elem)
}

func (w *xmlWriter) delivery(d *Delivery) {
	w.open("cac:Delivery")
	w.leaf("cbc:ActualDeliveryDate", d.Date)
	if d.LocationID != nil || d.Address != (Address{}) {
		w.open("cac:DeliveryLocation")
		if d.LocationID != nil {
			w.leafAttr("cbc:ID", d.LocationID.Value, "schemeID", d.LocationID.Scheme)
		}
		w.address("cac:Address", d.Address)
		w.close("cac:DeliveryLocation")
	}
	if d.PartyName != "" {
		w.open("cac:DeliveryParty")
		w.open("cac:PartyName")
		w.leaf("cbc:Name", d.PartyName)
		w.close("cac:PartyName")
		w.close("cac:DeliveryParty")
	}
	w.close("cac:Delivery")
}

func (w *xmlWriter) paymentMeans(pm PaymentMeans) {
	w.open("cac:PaymentMeans")
	w.leafAttr("cbc:PaymentMeansCode", pm.Code, "name", pm.Name)
	w.leaf("cbc:PaymentDueDate", pm.DueDate)
	w.leaf("cbc:PaymentID", pm.PaymentID)
	if pm.Card != nil {
		w.open("cac:CardAccount")
		w.leaf("cbc:PrimaryAccountNumberID", pm.Card.PrimaryAccountNumber)
		w.leaf("cbc:NetworkID", orNA(pm.Card.Network))
		w.leaf("cbc:HolderName", pm.Card.Holder)
		w.close("cac:CardAccount")
	}
	for _, a := range pm.Accounts {
		w.open("cac:PayeeFinancialAccount")
		w.leaf("cbc:ID", a.ID)
		w.leaf("cbc:Name", a.Name)
		if a.Branch != "" {
			w.open("cac:FinancialInstitutionBranch")
			w.leaf("cbc:ID", a.Branch)
			w.close("cac:FinancialInstitutionBranch")
		}
		w.close("cac:PayeeFinancialAccount")
	}
	if pm.Mandate != nil {
		w.open("cac:PaymentMandate")
		w.leaf("cbc:ID", pm.Mandate.ID)
		if pm.Mandate.DebitedAccount != "" {
			w.open("cac:PayerFinancialAccount")
			w.leaf("cbc:ID", pm.Mandate.DebitedAccount)
			w.close("cac:PayerFinancialAccount")
		}
		w.close("cac:PaymentMandate")
	}
	w.close("cac:PaymentMeans")
}

func (w *xmlWriter) allowanceCharge(ac AllowanceCharge) {
	w.open("cac:AllowanceCharge")
	w.leaf("cbc:ChargeIndicator", map[bool]string{true: "true", false: "false"}[ac.Charge])
	w.leaf("cbc:AllowanceChargeReasonCode", ac.ReasonCode)
	w.leaf("cbc:AllowanceChargeReason", ac.Reason)
	if ac.Percentage != nil {
		w.leaf("cbc:MultiplierFactorNumeric", fixed(*ac.Percentage, 2))
	}
	w.amount("cbc:Amount", ac.Amount)
	if ac.Base != nil {
		w.amount("cbc:BaseAmount", *ac.Base)
	}
	if ac.VAT != nil {
		w.category("cac:TaxCategory", *ac.VAT)
	}
	w.close("cac:AllowanceCharge")
}

func (w *xmlWriter) category(elem string, c TaxCategory) {
	w.open(elem)
	w.leaf("cbc:ID", c.ID)
	if c.Percent != nil {
		w.leaf("cbc:Percent", fixed(*c.Percent, 2))
	}
	w.leaf("cbc:TaxExemptionReasonCode", c.ExemptionReasonCode)
	w.leaf("cbc:TaxExemptionReason", c.ExemptionReason)
	w.open("cac:TaxScheme")
	w.leaf("cbc:ID", cmp.Or(c.Scheme, "VAT"))
	w.close("cac:TaxScheme")
	w.close(elem)
}

func (w *xmlWriter) totals(t Totals) {
	w.open("cac:LegalMonetaryTotal")
	w.amount("cbc:LineExtensionAmount", t.LineNet)
	w.optAmount("cbc:TaxExclusiveAmount", t.TaxExclusive)
	w.optAmount("cbc:TaxInclusiveAmount", t.TaxInclusive)
	w.optAmount("cbc:AllowanceTotalAmount", t.AllowanceTotal)
	w.optAmount("cbc:ChargeTotalAmount", t.ChargeTotal)
	w.optAmount("cbc:PrepaidAmount", t.Prepaid)
	w.optAmount("cbc:PayableRoundingAmount", t.Rounding)
	w.amount("cbc:PayableAmount", t.Payable)
	w.close("cac:LegalMonetaryTotal")
}

func (w *xmlWriter) line(l Line, credit bool) {
	elem, qty := "cac:InvoiceLine", "cbc:InvoicedQuantity"
	if credit {
		elem, qty = "cac:CreditNoteLine", "cbc:CreditedQuantity"
	}
	w.open(elem)
	w.leaf("cbc:ID", l.ID)
	w.leaf("cbc:Note", l.Note)
	w.leafAttr(qty, quantity(l.Quantity), "unitCode", l.Unit)
	if l.NetAmount != nil {
		w.leafAttr("cbc:LineExtensionAmount", atLeast2(*l.NetAmount), "currencyID", w.ccy)
	}
	w.leaf("cbc:AccountingCost", l.AccountingCost)
	w.period("cac:InvoicePeriod", l.Period)
	if l.OrderLineRef != "" {
		w.open("cac:OrderLineReference")
		w.leaf("cbc:LineID", l.OrderLineRef)
		w.close("cac:OrderLineReference")
	}
	w.idRef("cac:DocumentReference", l.DocumentRef)
	for _, ac := range l.AllowancesCharges {
		ac.VAT = nil // line allowances and charges carry no VAT category
		w.allowanceCharge(ac)
	}
	it := l.Item
	w.open("cac:Item")
	w.leaf("cbc:Description", it.Description)
	w.leaf("cbc:Name", it.Name)
	w.idRef("cac:BuyersItemIdentification", it.BuyerID)
	w.idRef("cac:SellersItemIdentification", it.SellerID)
	if it.StandardID != nil {
		w.open("cac:StandardItemIdentification")
		w.leafAttr("cbc:ID", it.StandardID.Value, "schemeID", it.StandardID.Scheme)
		w.close("cac:StandardItemIdentification")
	}
	if it.OriginCountry != "" {
		w.open("cac:OriginCountry")
		w.leaf("cbc:IdentificationCode", it.OriginCountry)
		w.close("cac:OriginCountry")
	}
	for _, c := range it.Classifications {
		w.open("cac:CommodityClassification")
		w.leafAttr("cbc:ItemClassificationCode", c.Code, "listID", c.ListID, "listVersionID", c.ListVersionID)
		w.close("cac:CommodityClassification")
	}
	w.category("cac:ClassifiedTaxCategory", it.VAT)
	for _, p := range it.Properties {
		w.open("cac:AdditionalItemProperty")
		w.leaf("cbc:Name", p.Name)
		w.leaf("cbc:Value", p.Value)
		w.close("cac:AdditionalItemProperty")
	}
	w.close("cac:Item")
	pr := l.Price
	w.open("cac:Price")
	if pr.Net != nil {
		w.leafAttr("cbc:PriceAmount", atLeast2(*pr.Net), "currencyID", w.ccy)
	}
	if pr.BaseQuantity != nil {
		w.leafAttr("cbc:BaseQuantity", quantity(*pr.BaseQuantity), "unitCode", pr.BaseUnit)
	}
	if pr.Discount != nil {
		w.open("cac:AllowanceCharge")
		w.leaf("cbc:ChargeIndicator", "false")
		w.leafAttr("cbc:Amount", atLeast2(*pr.Discount), "currencyID", w.ccy)
		if pr.Gross != nil {
			w.leafAttr("cbc:BaseAmount", atLeast2(*pr.Gross), "currencyID", w.ccy)
		}
		w.close("cac:AllowanceCharge")
	}
	w.close("cac:Price")
	w.close(elem)
}

// fixed writes a decimal with exactly the given number of places (rounding half away from zero).
func fixed(d decimal.Decimal, places int32) string { return d.StringFixed(places) }

// atLeast2 writes a decimal with at least two places, keeping any further ones it has.
func atLeast2(d decimal.Decimal) string {
	s := d.String() // the shortest form: no trailing zeros
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 2 {
		return s
	}
	return d.StringFixed(2)
}

// quantity writes two places, or three when the value needs them.
func quantity(d decimal.Decimal) string {
	if d.Round(2).Equal(d) {
		return d.StringFixed(2)
	}
	return d.StringFixed(3)
}

// xmlWriter writes indented XML with escaping; leaves with an empty value are skipped.
type xmlWriter struct {
	buf   bytes.Buffer
	depth int
	ccy   string // the document currency, written on amounts
}

func (w *xmlWriter) indent() {
	for i := 0; i < w.depth; i++ {
		w.buf.WriteString("  ")
	}
}

func (w *xmlWriter) open(name string) {
	w.indent()
	w.buf.WriteString("<" + name + ">\n")
	w.depth++
}

func (w *xmlWriter) close(name string) {
	w.depth--
	w.indent()
	w.buf.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) leaf(name, value string) { w.leafAttr(name, value) }

// leafAttr writes <name a="v">value</name>; attributes come in name/value pairs, empty ones skipped.
func (w *xmlWriter) leafAttr(name, value string, attrs ...string) {
	if value == "" {
		return
	}
	w.indent()
	w.buf.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] == "" {
			continue
		}
		w.buf.WriteString(" " + attrs[i] + `="`)
		escape(&w.buf, attrs[i+1])
		w.buf.WriteString(`"`)
	}
	w.buf.WriteString(">")
	escape(&w.buf, value)
	w.buf.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) amount(name string, d decimal.Decimal) {
	w.leafAttr(name, fixed(d, 2), "currencyID", w.ccy)
}

func (w *xmlWriter) optAmount(name string, d *decimal.Decimal) {
	if d != nil {
		w.amount(name, *d)
	}
}

// escape writes s as XML character data; characters XML 1.0 does not allow are left out.
func escape(b *bytes.Buffer, s string) {
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\r':
			b.WriteString("&#13;")
		case r < 0x20 && r != '\t' && r != '\n', r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError:
		default:
			b.WriteRune(r)
		}
	}
}
