package ubl

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"

	"github.com/shopspring/decimal"
)

// ReadBytes parses a document and reads its model. It does not validate: call Validate first, and
// read only what it accepts.
func ReadBytes(data []byte) (*Document, error) {
	t, err := xmltree.Parse(data, xmltree.DefaultLimits)
	if err != nil {
		return nil, err
	}
	return Read(t)
}

// Read builds the model of a parsed Invoice, CreditNote or Order. An amount, quantity or rate that is
// not a decimal is an error naming where it is.
func Read(t *xmltree.Tree) (*Document, error) {
	r := &reader{t: t}
	root := t.Root()
	var d *Document
	switch rootName(t) {
	case "Invoice":
		d = r.billing(root, KindInvoice, invoiceNames)
	case "CreditNote":
		d = r.billing(root, KindCreditNote, creditNoteNames)
	case "Order":
		d = r.order(root)
	default:
		return nil, errors.New("ubl: the document is not a UBL 2.1 Invoice, CreditNote or Order")
	}
	if r.err != nil {
		return nil, r.err
	}
	return d, nil
}

// kindNames are the element names that differ between invoices and credit notes.
type kindNames struct {
	typeCode, line, quantity childPath
}

var (
	invoiceNames    = kindNames{pth("cbc:InvoiceTypeCode"), pth("cac:InvoiceLine"), pth("cbc:InvoicedQuantity")}
	creditNoteNames = kindNames{pth("cbc:CreditNoteTypeCode"), pth("cac:CreditNoteLine"), pth("cbc:CreditedQuantity")}
)

func (r *reader) billing(n xmltree.NodeID, kind Kind, names kindNames) *Document {
	d := &Document{Kind: kind}
	r.header(n, d)
	d.TypeCode = r.str(n, names.typeCode)
	d.DueDate = r.str(n, pth("cbc:DueDate"))
	d.TaxPointDate = r.str(n, pth("cbc:TaxPointDate"))
	d.TaxCurrency = r.str(n, pth("cbc:TaxCurrencyCode"))
	d.AccountingCost = r.str(n, pth("cbc:AccountingCost"))
	d.BuyerReference = r.str(n, pth("cbc:BuyerReference"))
	if p := r.first(n, pth("cac:InvoicePeriod")); p != xmltree.None {
		d.Period = r.period(p)
	}
	ref := &d.References
	ref.Order = r.str(n, pth("cac:OrderReference/cbc:ID"))
	ref.SalesOrder = r.str(n, pth("cac:OrderReference/cbc:SalesOrderID"))
	ref.Contract = r.str(n, pth("cac:ContractDocumentReference/cbc:ID"))
	ref.Project = r.str(n, pth("cac:ProjectReference/cbc:ID"))
	ref.Despatch = r.str(n, pth("cac:DespatchDocumentReference/cbc:ID"))
	ref.Receipt = r.str(n, pth("cac:ReceiptDocumentReference/cbc:ID"))
	ref.Tender = r.str(n, pth("cac:OriginatorDocumentReference/cbc:ID"))
	for _, b := range r.all(n, pth("cac:BillingReference/cac:InvoiceDocumentReference")) {
		ref.PrecedingInvoice = append(ref.PrecedingInvoice, PrecedingInvoice{Number: r.str(b, pth("cbc:ID")), IssueDate: r.str(b, pth("cbc:IssueDate"))})
	}
	r.attachments(n, d)

	d.Seller = r.party(r.first(n, pth("cac:AccountingSupplierParty/cac:Party")))
	d.Buyer = r.party(r.first(n, pth("cac:AccountingCustomerParty/cac:Party")))
	if p := r.first(n, pth("cac:PayeeParty")); p != xmltree.None {
		payee := r.party(p)
		d.Payee = &payee
	}
	if p := r.first(n, pth("cac:TaxRepresentativeParty")); p != xmltree.None {
		rep := r.party(p)
		d.TaxRepresentative = &rep
	}
	if p := r.first(n, pth("cac:Delivery")); p != xmltree.None {
		d.Delivery = r.delivery(p)
	}
	for _, pm := range r.all(n, pth("cac:PaymentMeans")) {
		d.PaymentMeans = append(d.PaymentMeans, r.paymentMeans(pm))
	}
	d.PaymentTerms = r.str(n, pth("cac:PaymentTerms/cbc:Note"))
	for _, ac := range r.all(n, pth("cac:AllowanceCharge")) {
		d.AllowancesCharges = append(d.AllowancesCharges, r.allowanceCharge(ac, true))
	}
	r.taxTotals(n, d)
	for _, w := range r.all(n, pth("cac:WithholdingTaxTotal")) {
		d.Withholdings = append(d.Withholdings, Withholding{Amount: r.decOrZero(w, pth("cbc:TaxAmount")), Subtotals: r.subtotals(w)})
	}
	d.Withholdings = append(d.Withholdings, withholdingNotes(d.Notes)...)
	d.Totals = r.totals(r.first(n, pth("cac:LegalMonetaryTotal")))
	for _, l := range r.all(n, names.line) {
		d.Lines = append(d.Lines, r.line(l, names.quantity))
	}
	return d
}

func (r *reader) order(n xmltree.NodeID) *Document {
	d := &Document{Kind: KindOrder}
	r.header(n, d)
	d.IssueTime = r.str(n, pth("cbc:IssueTime"))
	d.TypeCode = r.str(n, pth("cbc:OrderTypeCode"))
	d.AccountingCost = r.str(n, pth("cbc:AccountingCost"))
	d.BuyerReference = r.str(n, pth("cbc:CustomerReference"))
	if p := r.first(n, pth("cac:ValidityPeriod")); p != xmltree.None {
		d.Period = r.period(p)
	}
	d.References.Quotation = r.str(n, pth("cac:QuotationDocumentReference/cbc:ID"))
	d.References.Tender = r.str(n, pth("cac:OriginatorDocumentReference/cbc:ID"))
	d.References.Contract = r.str(n, pth("cac:Contract/cbc:ID"))
	r.attachments(n, d)
	d.Buyer = r.party(r.first(n, pth("cac:BuyerCustomerParty/cac:Party")))
	d.Seller = r.party(r.first(n, pth("cac:SellerSupplierParty/cac:Party")))
	if p := r.first(n, pth("cac:Delivery")); p != xmltree.None {
		d.Delivery = r.delivery(p)
	}
	d.PaymentTerms = r.str(n, pth("cac:PaymentTerms/cbc:Note"))
	for _, ac := range r.all(n, pth("cac:AllowanceCharge")) {
		d.AllowancesCharges = append(d.AllowancesCharges, r.allowanceCharge(ac, true))
	}
	r.taxTotals(n, d)
	d.Totals = r.totals(r.first(n, pth("cac:AnticipatedMonetaryTotal")))
	for _, l := range r.all(n, pth("cac:OrderLine/cac:LineItem")) {
		d.Lines = append(d.Lines, r.line(l, pth("cbc:Quantity")))
	}
	return d
}

func (r *reader) header(n xmltree.NodeID, d *Document) {
	d.CustomizationID = r.str(n, pth("cbc:CustomizationID"))
	d.ProfileID = r.str(n, pth("cbc:ProfileID"))
	d.Number = r.str(n, pth("cbc:ID"))
	d.IssueDate = r.str(n, pth("cbc:IssueDate"))
	d.Currency = r.str(n, pth("cbc:DocumentCurrencyCode"))
	for _, note := range r.all(n, pth("cbc:Note")) {
		d.Notes = append(d.Notes, r.t.StringValue(note))
	}
}

func (r *reader) period(p xmltree.NodeID) *Period {
	return &Period{Start: r.str(p, pth("cbc:StartDate")), End: r.str(p, pth("cbc:EndDate")), DescriptionCode: r.str(p, pth("cbc:DescriptionCode"))}
}

func (r *reader) attachments(n xmltree.NodeID, d *Document) {
	for _, a := range r.all(n, pth("cac:AdditionalDocumentReference")) {
		att := Attachment{
			ID:          r.str(a, pth("cbc:ID")),
			IDScheme:    r.attr(r.first(a, pth("cbc:ID")), nameSchemeID),
			TypeCode:    r.str(a, pth("cbc:DocumentTypeCode")),
			Description: r.str(a, pth("cbc:DocumentDescription")),
			URI:         r.str(a, pth("cac:Attachment/cac:ExternalReference/cbc:URI")),
		}
		if att.TypeCode == "130" && d.References.InvoicedObject == nil {
			d.References.InvoicedObject = r.identifier(r.first(a, pth("cbc:ID")))
		}
		if b := r.first(a, pth("cac:Attachment/cbc:EmbeddedDocumentBinaryObject")); b != xmltree.None {
			att.MIMEType = r.attr(b, nameMimeCode)
			att.Filename = r.attr(b, nameFilename)
			att.Content = strings.TrimSpace(r.t.StringValue(b))
		}
		d.Attachments = append(d.Attachments, att)
	}
}

func (r *reader) party(p xmltree.NodeID) Party {
	if p == xmltree.None {
		return Party{}
	}
	party := Party{
		EndpointID: r.identifier(r.first(p, pth("cbc:EndpointID"))),
		Name:       r.str(p, pth("cac:PartyName/cbc:Name")),
		LegalName:  r.str(p, pth("cac:PartyLegalEntity/cbc:RegistrationName")),
		LegalID:    r.identifier(r.first(p, pth("cac:PartyLegalEntity/cbc:CompanyID"))),
		LegalForm:  r.str(p, pth("cac:PartyLegalEntity/cbc:CompanyLegalForm")),
		Address:    r.address(r.first(p, pth("cac:PostalAddress"))),
		Contact: Contact{
			Name:      r.str(p, pth("cac:Contact/cbc:Name")),
			Telephone: r.str(p, pth("cac:Contact/cbc:Telephone")),
			Telefax:   r.str(p, pth("cac:Contact/cbc:Telefax")),
			Email:     r.str(p, pth("cac:Contact/cbc:ElectronicMail")),
		},
	}
	for _, id := range r.all(p, pth("cac:PartyIdentification/cbc:ID")) {
		party.Identifiers = append(party.Identifiers, *r.identifier(id))
	}
	for _, ts := range r.all(p, pth("cac:PartyTaxScheme")) {
		if r.str(ts, pth("cac:TaxScheme/cbc:ID")) == "VAT" {
			party.VATID = r.str(ts, pth("cbc:CompanyID"))
		} else {
			party.TaxRegistration = r.str(ts, pth("cbc:CompanyID"))
		}
	}
	return party
}

func (r *reader) address(a xmltree.NodeID) Address {
	if a == xmltree.None {
		return Address{}
	}
	return Address{
		Street:           r.str(a, pth("cbc:StreetName")),
		AdditionalStreet: r.str(a, pth("cbc:AdditionalStreetName")),
		Line:             r.str(a, pth("cac:AddressLine/cbc:Line")),
		BuildingNumber:   r.str(a, pth("cbc:BuildingNumber")),
		BuildingName:     r.str(a, pth("cbc:BuildingName")),
		City:             r.str(a, pth("cbc:CityName")),
		PostalZone:       r.str(a, pth("cbc:PostalZone")),
		Subdivision:      r.str(a, pth("cbc:CountrySubentity")),
		Country:          r.str(a, pth("cac:Country/cbc:IdentificationCode")),
	}
}

func (r *reader) delivery(n xmltree.NodeID) *Delivery {
	d := &Delivery{
		Date:           r.str(n, pth("cbc:ActualDeliveryDate")),
		LocationID:     r.identifier(r.first(n, pth("cac:DeliveryLocation/cbc:ID"))),
		Address:        r.address(r.first(n, pth("cac:DeliveryLocation/cac:Address"))),
		PartyName:      r.str(n, pth("cac:DeliveryParty/cac:PartyName/cbc:Name")),
		RequestedStart: r.str(n, pth("cac:RequestedDeliveryPeriod/cbc:StartDate")),
		RequestedEnd:   r.str(n, pth("cac:RequestedDeliveryPeriod/cbc:EndDate")),
	}
	return d
}

func (r *reader) paymentMeans(n xmltree.NodeID) PaymentMeans {
	pm := PaymentMeans{
		Code:      r.str(n, pth("cbc:PaymentMeansCode")),
		PaymentID: r.str(n, pth("cbc:PaymentID")),
		DueDate:   r.str(n, pth("cbc:PaymentDueDate")),
	}
	if c := r.first(n, pth("cbc:PaymentMeansCode")); c != xmltree.None {
		pm.Name = r.attr(c, nameName)
	}
	for _, a := range r.all(n, pth("cac:PayeeFinancialAccount")) {
		pm.Accounts = append(pm.Accounts, Account{ID: r.str(a, pth("cbc:ID")), Name: r.str(a, pth("cbc:Name")),
			Branch: r.str(a, pth("cac:FinancialInstitutionBranch/cbc:ID"))})
	}
	if c := r.first(n, pth("cac:CardAccount")); c != xmltree.None {
		pm.Card = &Card{PrimaryAccountNumber: r.str(c, pth("cbc:PrimaryAccountNumberID")), Network: r.str(c, pth("cbc:NetworkID")),
			Holder: r.str(c, pth("cbc:HolderName"))}
	}
	if m := r.first(n, pth("cac:PaymentMandate")); m != xmltree.None {
		pm.Mandate = &Mandate{ID: r.str(m, pth("cbc:ID")), DebitedAccount: r.str(m, pth("cac:PayerFinancialAccount/cbc:ID"))}
	}
	return pm
}

func (r *reader) allowanceCharge(n xmltree.NodeID, withVAT bool) AllowanceCharge {
	ac := AllowanceCharge{
		Charge:     r.str(n, pth("cbc:ChargeIndicator")) == "true",
		ReasonCode: r.str(n, pth("cbc:AllowanceChargeReasonCode")),
		Reason:     r.str(n, pth("cbc:AllowanceChargeReason")),
		Percentage: r.dec(n, pth("cbc:MultiplierFactorNumeric")),
		Amount:     r.decOrZero(n, pth("cbc:Amount")),
		Base:       r.dec(n, pth("cbc:BaseAmount")),
	}
	if withVAT {
		if c := r.first(n, pth("cac:TaxCategory")); c != xmltree.None {
			cat := r.category(c)
			ac.VAT = &cat
		}
	}
	return ac
}

func (r *reader) category(c xmltree.NodeID) TaxCategory {
	return TaxCategory{
		ID:                  r.str(c, pth("cbc:ID")),
		Percent:             r.dec(c, pth("cbc:Percent")),
		ExemptionReasonCode: r.str(c, pth("cbc:TaxExemptionReasonCode")),
		ExemptionReason:     r.str(c, pth("cbc:TaxExemptionReason")),
		Scheme:              r.str(c, pth("cac:TaxScheme/cbc:ID")),
	}
}

// taxTotals reads the VAT total in the document currency (the one with a breakdown, or the one in that
// currency) and the one in the tax currency.
func (r *reader) taxTotals(n xmltree.NodeID, d *Document) {
	for _, tt := range r.all(n, pth("cac:TaxTotal")) {
		amount := r.first(tt, pth("cbc:TaxAmount"))
		v := r.dec(tt, pth("cbc:TaxAmount"))
		inDocCcy := r.attr(amount, nameCurrencyID) == d.Currency || d.Currency == ""
		switch {
		case d.TaxTotal == nil && (inDocCcy || r.first(tt, pth("cac:TaxSubtotal")) != xmltree.None):
			d.TaxTotal = v
			d.VATBreakdown = r.subtotals(tt)
		case d.TaxTotalInTaxCcy == nil:
			d.TaxTotalInTaxCcy = v
		}
	}
}

func (r *reader) subtotals(n xmltree.NodeID) []VATBreakdown {
	var out []VATBreakdown
	for _, s := range r.all(n, pth("cac:TaxSubtotal")) {
		out = append(out, VATBreakdown{
			Taxable:  r.decOrZero(s, pth("cbc:TaxableAmount")),
			Tax:      r.decOrZero(s, pth("cbc:TaxAmount")),
			Category: r.category(r.first(s, pth("cac:TaxCategory"))),
		})
	}
	return out
}

func (r *reader) totals(n xmltree.NodeID) Totals {
	if n == xmltree.None {
		return Totals{}
	}
	return Totals{
		LineNet:        r.decOrZero(n, pth("cbc:LineExtensionAmount")),
		TaxExclusive:   r.dec(n, pth("cbc:TaxExclusiveAmount")),
		TaxInclusive:   r.dec(n, pth("cbc:TaxInclusiveAmount")),
		AllowanceTotal: r.dec(n, pth("cbc:AllowanceTotalAmount")),
		ChargeTotal:    r.dec(n, pth("cbc:ChargeTotalAmount")),
		Prepaid:        r.dec(n, pth("cbc:PrepaidAmount")),
		Rounding:       r.dec(n, pth("cbc:PayableRoundingAmount")),
		Payable:        r.decOrZero(n, pth("cbc:PayableAmount")),
	}
}

func (r *reader) line(n xmltree.NodeID, quantity childPath) Line {
	l := Line{
		ID:             r.str(n, pth("cbc:ID")),
		Note:           r.str(n, pth("cbc:Note")),
		Quantity:       r.decOrZero(n, quantity),
		NetAmount:      r.dec(n, pth("cbc:LineExtensionAmount")),
		AccountingCost: r.str(n, pth("cbc:AccountingCost")),
		OrderLineRef:   r.str(n, pth("cac:OrderLineReference/cbc:LineID")),
		DocumentRef:    r.str(n, pth("cac:DocumentReference/cbc:ID")),
	}
	if q := r.first(n, quantity); q != xmltree.None {
		l.Unit = r.attr(q, nameUnitCode)
	}
	if p := r.first(n, pth("cac:InvoicePeriod")); p != xmltree.None {
		l.Period = r.period(p)
	}
	for _, ac := range r.all(n, pth("cac:AllowanceCharge")) {
		l.AllowancesCharges = append(l.AllowancesCharges, r.allowanceCharge(ac, false))
	}
	item := r.first(n, pth("cac:Item"))
	l.Item = Item{
		Name:          r.str(item, pth("cbc:Name")),
		Description:   r.str(item, pth("cbc:Description")),
		SellerID:      r.str(item, pth("cac:SellersItemIdentification/cbc:ID")),
		BuyerID:       r.str(item, pth("cac:BuyersItemIdentification/cbc:ID")),
		StandardID:    r.identifier(r.first(item, pth("cac:StandardItemIdentification/cbc:ID"))),
		OriginCountry: r.str(item, pth("cac:OriginCountry/cbc:IdentificationCode")),
		VAT:           r.category(r.first(item, pth("cac:ClassifiedTaxCategory"))),
	}
	for _, c := range r.all(item, pth("cac:CommodityClassification/cbc:ItemClassificationCode")) {
		l.Item.Classifications = append(l.Item.Classifications, Classification{
			Code: strings.TrimSpace(r.t.StringValue(c)), ListID: r.attr(c, nameListID), ListVersionID: r.attr(c, nameListVersionID)})
	}
	for _, p := range r.all(item, pth("cac:AdditionalItemProperty")) {
		l.Item.Properties = append(l.Item.Properties, Property{Name: r.str(p, pth("cbc:Name")), Value: r.str(p, pth("cbc:Value"))})
	}
	price := r.first(n, pth("cac:Price"))
	l.Price = Price{
		Net:          r.dec(price, pth("cbc:PriceAmount")),
		BaseQuantity: r.dec(price, pth("cbc:BaseQuantity")),
		Discount:     r.dec(price, pth("cac:AllowanceCharge/cbc:Amount")),
		Gross:        r.dec(price, pth("cac:AllowanceCharge/cbc:BaseAmount")),
	}
	if b := r.first(price, pth("cbc:BaseQuantity")); b != xmltree.None {
		l.Price.BaseUnit = r.attr(b, nameUnitCode)
	}
	return l
}

// reader walks a tree along child paths; the first malformed number it meets is its error.
type reader struct {
	t   *xmltree.Tree
	err error
}

// childPath is a sequence of child element names.
type childPath []xmltree.Name

var paths sync.Map // text → childPath

// pth compiles "cac:A/cbc:B", once per text.
func pth(s string) childPath {
	if p, ok := paths.Load(s); ok {
		return p.(childPath)
	}
	var p childPath
	for _, step := range strings.Split(s, "/") {
		p = append(p, rules.MustName(step))
	}
	paths.Store(s, p)
	return p
}

var (
	nameMimeCode      = rules.MustName("mimeCode")
	nameFilename      = rules.MustName("filename")
	nameName          = rules.MustName("name")
	nameCurrencyID    = rules.MustName("currencyID")
	nameUnitCode      = rules.MustName("unitCode")
	nameListID        = rules.MustName("listID")
	nameListVersionID = rules.MustName("listVersionID")
	nameSchemeID      = rules.MustName("schemeID")
)

// first is the first element the path selects from n, in document order, or None.
func (r *reader) first(n xmltree.NodeID, p childPath) xmltree.NodeID {
	if n == xmltree.None {
		return xmltree.None
	}
	for c := r.t.FirstChild(n); c != xmltree.None; c = r.t.NextSibling(c) {
		if r.t.Name(c) != p[0] {
			continue
		}
		if len(p) == 1 {
			return c
		}
		if x := r.first(c, p[1:]); x != xmltree.None {
			return x
		}
	}
	return xmltree.None
}

// all is every element the path selects from n, in document order.
func (r *reader) all(n xmltree.NodeID, p childPath) []xmltree.NodeID {
	var out []xmltree.NodeID
	var walk func(x xmltree.NodeID, p childPath)
	walk = func(x xmltree.NodeID, p childPath) {
		for c := r.t.FirstChild(x); c != xmltree.None; c = r.t.NextSibling(c) {
			if r.t.Name(c) != p[0] {
				continue
			}
			if len(p) == 1 {
				out = append(out, c)
			} else {
				walk(c, p[1:])
			}
		}
	}
	if n != xmltree.None {
		walk(n, p)
	}
	return out
}

// str is the trimmed text of the first element the path selects ("" when none).
func (r *reader) str(n xmltree.NodeID, p childPath) string {
	x := r.first(n, p)
	if x == xmltree.None {
		return ""
	}
	return strings.TrimSpace(r.t.StringValue(x))
}

func (r *reader) attr(n xmltree.NodeID, name xmltree.Name) string {
	if n == xmltree.None {
		return ""
	}
	v, _ := r.t.Attr(n, name)
	return strings.TrimSpace(v)
}

func (r *reader) identifier(n xmltree.NodeID) *Identifier {
	if n == xmltree.None {
		return nil
	}
	return &Identifier{Value: strings.TrimSpace(r.t.StringValue(n)), Scheme: r.attr(n, nameSchemeID)}
}

// dec is the decimal the path selects, nil when absent.
func (r *reader) dec(n xmltree.NodeID, p childPath) *decimal.Decimal {
	x := r.first(n, p)
	if x == xmltree.None {
		return nil
	}
	s := r.t.StringValue(x)
	d, ok := rules.ParseDec(s)
	if !ok {
		if r.err == nil {
			r.err = fmt.Errorf("ubl: %s: %q is not a decimal", r.t.Path(x), s)
		}
		return nil
	}
	v := d.Decimal()
	return &v
}

func (r *reader) decOrZero(n xmltree.NodeID, p childPath) decimal.Decimal {
	if v := r.dec(n, p); v != nil {
		return *v
	}
	return decimal.Zero
}

// withholdingNotes reads the withholding taxes CIUS-PT carries in tagged notes:
// #WITHHOLDINGTAXAMOUNT@WITHHOLDINGTAX-001#10.00#, with the type and description of the same index.
func withholdingNotes(notes []string) []Withholding {
	type parts struct{ amount, kind, desc string }
	byIndex := map[string]*parts{}
	var order []string
	for _, n := range notes {
		n = strings.TrimSpace(n)
		for _, tag := range []string{"WITHHOLDINGTAXAMOUNT", "WITHHOLDINGTAXTYPE", "WITHHOLDINGTAXDESCRIPTION"} {
			prefix := "#" + tag + "@WITHHOLDINGTAX-"
			if !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, "#") {
				continue
			}
			index, value, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(n, prefix), "#"), "#")
			if !ok {
				continue
			}
			p := byIndex[index]
			if p == nil {
				p = &parts{}
				byIndex[index] = p
				order = append(order, index)
			}
			switch tag {
			case "WITHHOLDINGTAXAMOUNT":
				p.amount = value
			case "WITHHOLDINGTAXTYPE":
				p.kind = value
			default:
				p.desc = value
			}
		}
	}
	var out []Withholding
	for _, index := range order {
		p := byIndex[index]
		amount, ok := rules.ParseDec(p.amount)
		if !ok {
			continue
		}
		out = append(out, Withholding{Amount: amount.Decimal(),
			Subtotals: []VATBreakdown{{Tax: amount.Decimal(), Category: TaxCategory{ID: p.kind, ExemptionReason: p.desc}}}})
	}
	return out
}
