package server

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/store"
	"einvoice/ubl"
	"einvoice/ubl/pdf"

	"github.com/shopspring/decimal"
)

// documentData is the body of POST /apps/documents: the incumbent's field names, as a JSON object or
// as multipart form fields in bracket notation. The service computes the amounts; amounts the
// integrator sends anyway (a line's amount, a tax amount, the header discount total) are checked
// against them. A list's `max` tag is the most items it takes (checkJSONShape refuses more before
// decoding; lists without one take defaultMaxItems).
type documentData struct {
	Number                text                 `json:"number"`
	EmissionDate          text                 `json:"emission_date"`
	DueDate               text                 `json:"due_date"`
	TaxPointDate          text                 `json:"tax_point_date"`
	Type                  text                 `json:"type_document_fact"`
	Currency              text                 `json:"currency"`
	ATCUD                 text                 `json:"atcud"`
	QRCode                text                 `json:"qr_code"`
	CommitmentNumber      text                 `json:"commitment_number"`
	BuyerReference        text                 `json:"buyer_reference"`
	ProjectReference      text                 `json:"project_reference"`
	Notes                 []text               `json:"notes"`
	InvoicePeriod         *periodData          `json:"invoice_period"`
	Supplier              partyData            `json:"supplier"`
	Customer              partyData            `json:"customer"`
	Delivery              *deliveryData        `json:"delivery"`
	Lines                 presized[lineData]   `json:"lines" max:"10000"`
	DiscountsCharges      []discountChargeData `json:"discounts_charges"`
	DiscountAmount        text                 `json:"discount_amount"`
	ChargeAmount          text                 `json:"charge_amount"`
	WithholdingTax        []withholdingData    `json:"withholding_tax" max:"999"`
	WithholdingTaxAmount  text                 `json:"withholding_tax_amount"`
	PrepaidAmount         text                 `json:"prepaid_amount"`
	PayableRoundingAmount text                 `json:"payable_rounding_amount"`
	PaymentTerms          paymentTermsData     `json:"payment_terms"`
	PaymentMeans          *paymentMeansData    `json:"payment_means"`
	References            []referenceData      `json:"references"`

	SendByEmail      text       `json:"send_by_email"`
	AdditionalEmails []text     `json:"additional_emails" max:"20"`
	DisableXMLSign   text       `json:"disable_xml_sign"`
	DisablePDFSign   text       `json:"disable_pdf_sign"`
	File             *fileData  `json:"file"`
	Files            []fileData `json:"files" max:"20"`
}

type periodData struct {
	StartDate text `json:"start_date"`
	EndDate   text `json:"end_date"`
}

type partyData struct {
	Number           text `json:"number"`
	Name             text `json:"name"`
	Street           text `json:"street"`
	AdditionalStreet text `json:"additional_street"`
	Building         text `json:"building"`
	BuildingNumber   text `json:"building_number"`
	City             text `json:"city"`
	PostalZone       text `json:"postal_zone"`
	Region           text `json:"region"`
	CountryCode      text `json:"country_code"`
	Email            text `json:"email"`
	Telephone        text `json:"telephone"`
	Telefax          text `json:"telefax"`
	GLN              text `json:"gln"`
	CompanyLegalForm text `json:"company_legal_form"`
}

type deliveryData struct {
	ID           text `json:"id"`
	DeliveryDate text `json:"delivery_date"`
	NamePlace    text `json:"name_place"`
	Street       text `json:"street"`
	City         text `json:"city"`
	PostalZone   text `json:"postal_zone"`
	CountryCode  text `json:"country_code"`
}

type lineData struct {
	ID                      text                 `json:"id"`
	Name                    text                 `json:"name"`
	Description             text                 `json:"description"`
	Unit                    text                 `json:"unit"`
	Quantity                text                 `json:"quantity"`
	Price                   text                 `json:"price"`
	BaseQuantity            text                 `json:"base_quantity"`
	Amount                  text                 `json:"amount"`
	SellerNumber            text                 `json:"seller_number"`
	BuyerNumber             text                 `json:"buyer_number"`
	EANItemIdentification   text                 `json:"ean_item_identification"`
	OriginCountry           text                 `json:"origin_country"`
	CommodityClassification text                 `json:"commodity_classification"`
	Note                    text                 `json:"note"`
	Taxes                   []taxData            `json:"taxes"`
	DiscountsCharges        []discountChargeData `json:"discounts_charges"`
	PriceDiscount           *priceDiscountData   `json:"price_discount"`
	AdditionalProperty      []propertyData       `json:"additional_property"`
	Commitment              *commitmentData      `json:"commitment"`
	InvoicePeriod           *periodData          `json:"invoice_period"`
	References              []referenceData      `json:"references"`
}

type taxData struct {
	TaxPercent             text `json:"tax_percent"`
	TaxAmount              text `json:"tax_amount"`
	TaxCode                text `json:"tax_code"`
	TaxExemptionReasonCode text `json:"tax_exemption_reason_code"`
	TaxExemptionReason     text `json:"tax_exemption_reason"`
}

type discountChargeData struct {
	Type                   text `json:"type"`
	Reason                 text `json:"reason"`
	ReasonCode             text `json:"reason_code"`
	Amount                 text `json:"amount"`
	BaseAmount             text `json:"base_amount"`
	Percent                text `json:"percent"`
	TaxCode                text `json:"tax_code"`
	TaxExemptionReasonCode text `json:"tax_exemption_reason_code"`
	TaxExemptionReason     text `json:"tax_exemption_reason"`
}

type priceDiscountData struct {
	BaseAmount text `json:"base_amount"`
	Amount     text `json:"amount"`
}

type propertyData struct {
	Name  text `json:"name"`
	Value text `json:"value"`
}

type commitmentData struct {
	Number text `json:"number"`
	Line   text `json:"line"`
}

type withholdingData struct {
	Type        text `json:"type"`
	TaxAmount   text `json:"tax_amount"`
	Description text `json:"description"`
}

type paymentTermsData struct {
	Note    text `json:"note"`
	DueDate text `json:"due_date"`
}

type paymentMeansData struct {
	Code                text `json:"code"`
	ATMPaymentEntity    text `json:"atm_payment_entity"`
	ATMPaymentReference text `json:"atm_payment_reference"`
	ATMPaymentValue     text `json:"atm_payment_value"`
	IBAN                text `json:"iban"`
	AccountName         text `json:"account_name"`
	BIC                 text `json:"bic"`
	CardNumber          text `json:"card_number"`
	CardName            text `json:"card_name"`
	DebitedMandate      text `json:"debited_mandate"`
	DebitedAccount      text `json:"debited_account"`
}

type referenceData struct {
	DocumentType text `json:"document_type"`
	Number       text `json:"number"`
	Date         text `json:"date"`
	Line         text `json:"line"`
}

// fileData is a file in a JSON body; in a multipart body files are file parts.
type fileData struct {
	Filename text `json:"filename"`
	MIMEType text `json:"mime_type"`
	Content  text `json:"content"` // base64
}

// upload is a file received with a document, from either body.
type upload struct {
	field   string // the field it came in, for errors
	name    string
	mime    string
	content []byte
}

// docType is a kind of document the API names: its AT type, its UNCL 1001 code, its alias.
type docType struct {
	Type, Code, Alias string
	PT, EN            string
	Kind              ubl.Kind
}

var docTypes = []docType{
	{"FT", "380", "invoice", "Fatura", "Invoice", ubl.KindInvoice},
	{"FS", "380", "simplified_invoice", "Fatura simplificada", "Simplified invoice", ubl.KindInvoice},
	{"FR", "380", "invoice_receipt", "Fatura-recibo", "Invoice-receipt", ubl.KindInvoice},
	{"ND", "383", "debit_note", "Nota de débito", "Debit note", ubl.KindInvoice},
	{"NC", "381", "credit_note", "Nota de crédito", "Credit note", ubl.KindCreditNote},
	{"FT", "386", "prepayment_invoice", "Fatura de adiantamento", "Prepayment invoice", ubl.KindInvoice},
	{"FT", "389", "self_billed_invoice", "Autofaturação", "Self-billed invoice", ubl.KindInvoice},
	{"EN", "220", "order", "Encomenda", "Order", ubl.KindOrder},
}

// docTypeOf finds a document type by what a document's type code says: an AT type (FT, NC, …) or a
// UNCL 1001 code (380, 381, …).
func docTypeOf(code string) (docType, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	for _, t := range docTypes {
		if t.Type == code && t.Type != "EN" || t.Code == code {
			return t, true
		}
	}
	return docType{}, false
}

// IssueOptions are the delivery and signing options of both creation methods.
type IssueOptions struct {
	SendByEmail    bool     // send_by_email: the PDF goes by e-mail to the customer
	Emails         []string // additional_emails: more addresses
	DisableXMLSign bool     // disable_xml_sign: the service does not sign the XML
	DisablePDFSign bool     // disable_pdf_sign: nor the PDFs
}

// fieldBuilder turns text fields into typed values, collecting the problems under their field names:
// the first maxShownErrors fields, and a count of the problems found after them. Once the list is
// full, work that only finds more problems (the remaining lines) is skipped, so the count is a lower
// bound.
type fieldBuilder struct {
	errs    FieldErrors
	omitted int
}

// full tells whether the answer can list no more problems.
func (b *fieldBuilder) full() bool { return len(b.errs) == maxShownErrors }

func (b *fieldBuilder) fail(field string, code *Code) {
	if b.errs == nil {
		b.errs = FieldErrors{}
	}
	if _, ok := b.errs[field]; ok {
		return
	}
	if len(b.errs) == maxShownErrors {
		b.omitted++
		return
	}
	b.errs[field] = Problem{Code: code}
}

func (b *fieldBuilder) err() error {
	switch {
	case len(b.errs) == 0:
		return nil
	case b.omitted > 0:
		return truncatedErrors{b.errs, b.omitted}
	}
	return b.errs
}

// str is a required or optional text of at most max characters.
func (b *fieldBuilder) str(field string, v text, required bool, max int) string {
	s := string(v)
	switch {
	case s == "" && required:
		b.fail(field, CodeRequired)
	case len([]rune(s)) > max || strings.ContainsAny(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f"):
		b.fail(field, CodeInvalidValue)
		return ""
	}
	return s
}

// date is a YYYY-MM-DD date.
func (b *fieldBuilder) date(field string, v text, required bool) string {
	s := string(v)
	if s == "" {
		if required {
			b.fail(field, CodeRequired)
		}
		return ""
	}
	if _, err := time.Parse("2006-01-02", s); err != nil {
		b.fail(field, CodeInvalidValue)
		return ""
	}
	return s
}

// dec is a decimal with at most maxFrac decimals; negative values only when allowed.
func (b *fieldBuilder) dec(field string, v text, required bool, maxFrac int32, negative bool) *decimal.Decimal {
	s := strings.ReplaceAll(string(v), ",", ".")
	if s == "" {
		if required {
			b.fail(field, CodeRequired)
		}
		return nil
	}
	d, err := decimal.NewFromString(s)
	if err != nil || strings.ContainsAny(s, "eE") || -d.Exponent() > maxFrac && !d.Equal(d.Round(maxFrac)) ||
		d.Sign() < 0 && !negative || d.Abs().GreaterThanOrEqual(decimal.New(1, 13)) {
		b.fail(field, CodeInvalidValue)
		return nil
	}
	return &d
}

var (
	reCountry = regexp.MustCompile(`^[A-Z]{2}$`)
	reEmail   = regexp.MustCompile(`^[^@\s<>(),;:"\[\]]+@[^@\s<>(),;:"\[\]]+\.[^@\s<>(),;:"\[\]]+$`)
)

func (b *fieldBuilder) country(field string, v text, def string) string {
	s := strings.ToUpper(string(v))
	if s == "" {
		return def
	}
	if !reCountry.MatchString(s) {
		b.fail(field, CodeInvalidValue)
		return def
	}
	return s
}

func (b *fieldBuilder) email(field string, v text) string {
	s := string(v)
	if s != "" && (len(s) > 254 || !reEmail.MatchString(s)) {
		b.fail(field, CodeInvalidValue)
		return ""
	}
	return s
}

func (b *fieldBuilder) flag(field string, v text) bool {
	on, ok := v.flag()
	if !ok {
		b.fail(field, CodeInvalidValue)
	}
	return on
}

// flags reads the delivery options; emails are the additional ones (the customer's comes from the
// document).
func (b *fieldBuilder) flags(sendByEmail text, emails []text, disableXML, disablePDF text) IssueOptions {
	f := IssueOptions{
		SendByEmail:    b.flag("send_by_email", sendByEmail),
		DisableXMLSign: b.flag("disable_xml_sign", disableXML),
		DisablePDFSign: b.flag("disable_pdf_sign", disablePDF),
	}
	for i, e := range emails {
		if addr := b.email(fmt.Sprintf("additional_emails[%d]", i), e); addr != "" {
			f.Emails = append(f.Emails, addr)
		}
	}
	if len(emails) > 20 {
		b.fail("additional_emails", CodeInvalidValue)
	}
	return f
}

// buildDocument turns structured data into the model of a CIUS-PT invoice or credit note, amounts
// computed. The issuer is the supplier: its name and tax ID come from the entity; its address from
// supplier[...].
func buildDocument(in *documentData, issuer store.Entity) (*ubl.Document, error) {
	b := &fieldBuilder{}
	dt, ok := docTypeOf(string(in.Type))
	switch {
	case in.Type == "":
		b.fail("type_document_fact", CodeRequired)
	case !ok || dt.Kind == ubl.KindOrder:
		b.fail("type_document_fact", CodeInvalidValue)
	}
	d := &ubl.Document{
		Kind:            dt.Kind,
		CustomizationID: "urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:2.1.1",
		Number:          b.str("number", in.Number, true, 50),
		IssueDate:       b.date("emission_date", in.EmissionDate, true),
		TypeCode:        strings.ToUpper(string(in.Type)),
		TaxPointDate:    b.date("tax_point_date", in.TaxPointDate, false),
		Currency:        "EUR",
		AccountingCost:  b.str("commitment_number", in.CommitmentNumber, false, 50),
		BuyerReference:  b.str("buyer_reference", in.BuyerReference, false, 50),
	}
	if c := strings.ToUpper(string(in.Currency)); c != "" {
		if len(c) != 3 {
			b.fail("currency", CodeInvalidValue)
		}
		d.Currency = c
	}
	d.References.Project = b.str("project_reference", in.ProjectReference, false, 50)
	for i, n := range in.Notes {
		if s := b.str(fmt.Sprintf("notes[%d]", i), n, false, 1000); s != "" {
			d.Notes = append(d.Notes, s)
		}
	}
	if p := in.InvoicePeriod; p != nil {
		d.Period = &ubl.Period{Start: b.date("invoice_period[start_date]", p.StartDate, false), End: b.date("invoice_period[end_date]", p.EndDate, false)}
	}

	d.Seller = buildParty(b, "supplier", in.Supplier, true)
	d.Seller.Name = cmp.Or(d.Seller.Name, issuer.Name)
	d.Seller.LegalName = d.Seller.Name
	d.Seller.VATID = issuer.Country + issuer.NIF
	d.Seller.LegalID = &ubl.Identifier{Value: issuer.Country + issuer.NIF}
	if d.Seller.Address.Country == "" {
		d.Seller.Address.Country = issuer.Country
	}
	d.Buyer = buildParty(b, "customer", in.Customer, false)
	d.Buyer.LegalName = d.Buyer.Name
	if d.Buyer.VATID != "" {
		d.Buyer.LegalID = &ubl.Identifier{Value: d.Buyer.VATID}
	}
	d.Delivery = buildDelivery(b, in.Delivery, d.Buyer.Address)

	buildReferences(b, in.References, d)
	buildPayment(b, in, d)

	if len(in.Lines) == 0 {
		b.fail("lines", CodeRequired)
	}
	d.Lines = make([]ubl.Line, 0, len(in.Lines))
	for i := range in.Lines {
		if b.full() {
			break // the answer lists no more problems: checking more lines is wasted work
		}
		d.Lines = append(d.Lines, buildLine(b, fmt.Sprintf("lines[%d]", i), i, &in.Lines[i]))
	}
	for i := range in.DiscountsCharges {
		d.AllowancesCharges = append(d.AllowancesCharges, buildDiscountCharge(b, fmt.Sprintf("discounts_charges[%d]", i), &in.DiscountsCharges[i], true))
	}
	d.Totals.Prepaid = b.dec("prepaid_amount", in.PrepaidAmount, false, 2, false)
	d.Totals.Rounding = b.dec("payable_rounding_amount", in.PayableRoundingAmount, false, 2, true)
	buildWithholdings(b, in, d)
	buildQRCode(b, in, d)
	if err := b.err(); err != nil {
		return nil, err
	}

	ubl.Complete(d)
	checkSentAmounts(b, in, d)
	completeQRCode(d)
	return d, b.err()
}

// supplierDefaults fills what the request left out of the supplier from the issuer's company profile
// (address, contact, GLN, legal form with the share capital) and gives a credit transfer without an
// account the profile's IBAN, so that an integrator need not send its own details on every document.
func (w *Workflow) supplierDefaults(ctx context.Context, issuerID int64, in *documentData) error {
	p, err := w.store.ProfileOf(ctx, issuerID)
	if err != nil {
		return err
	}
	legal := p.LegalForm
	if p.ShareCapital != "" {
		legal = strings.TrimPrefix(legal+", "+p.ShareCapital, ", ")
	}
	s := &in.Supplier
	for _, f := range []struct {
		field *text
		value string
	}{
		{&s.Street, p.Street}, {&s.AdditionalStreet, p.AdditionalStreet}, {&s.BuildingNumber, p.BuildingNumber},
		{&s.PostalZone, p.PostalZone}, {&s.City, p.City}, {&s.Region, p.Region}, {&s.CountryCode, p.Country},
		{&s.Email, p.Email}, {&s.Telephone, p.Telephone}, {&s.GLN, p.GLN}, {&s.CompanyLegalForm, legal},
	} {
		if strings.TrimSpace(string(*f.field)) == "" {
			*f.field = text(f.value)
		}
	}
	if m := in.PaymentMeans; m != nil && m.IBAN == "" && slices.Contains(creditTransferCodes, strings.TrimSpace(string(m.Code))) {
		m.IBAN = text(p.IBAN)
	}
	return nil
}

// creditTransferCodes are the UNCL 4461 payment means paid into the supplier's account.
var creditTransferCodes = []string{"30", "31", "42", "58"}

// buildParty reads a supplier or customer. A customer's number is its tax ID, with or without its
// country prefix.
func buildParty(b *fieldBuilder, field string, in partyData, supplier bool) ubl.Party {
	f := func(name string) string { return field + "[" + name + "]" }
	country := b.country(f("country_code"), in.CountryCode, "PT")
	p := ubl.Party{
		Name: b.str(f("name"), in.Name, !supplier, 200),
		Address: ubl.Address{
			Street:           b.str(f("street"), in.Street, false, 200),
			AdditionalStreet: b.str(f("additional_street"), in.AdditionalStreet, false, 200),
			BuildingName:     b.str(f("building"), in.Building, false, 200),
			BuildingNumber:   b.str(f("building_number"), in.BuildingNumber, false, 50),
			City:             b.str(f("city"), in.City, false, 200),
			PostalZone:       b.str(f("postal_zone"), in.PostalZone, false, 200),
			Subdivision:      b.str(f("region"), in.Region, false, 200),
			Country:          country,
		},
		Contact: ubl.Contact{
			Email:     b.email(f("email"), in.Email),
			Telephone: b.str(f("telephone"), in.Telephone, false, 200),
			Telefax:   b.str(f("telefax"), in.Telefax, false, 200),
		},
		LegalForm: b.str(f("company_legal_form"), in.CompanyLegalForm, false, 200),
	}
	if gln := b.str(f("gln"), in.GLN, false, 50); gln != "" {
		p.EndpointID = &ubl.Identifier{Value: gln, Scheme: "0088"}
	}
	if !supplier {
		number := strings.ToUpper(strings.ReplaceAll(string(in.Number), " ", ""))
		switch {
		case number == "":
			b.fail(f("number"), CodeRequired)
		case len(number) > 2 && reCountry.MatchString(number[:2]):
			p.VATID = number
		default:
			p.VATID = country + number
		}
		if len(p.VATID) > 30 {
			b.fail(f("number"), CodeInvalidValue)
		}
	}
	return p
}

// buildDelivery reads the deliver-to place; CIUS-PT requires one, so without it goods are taken as
// delivered to the customer's address.
func buildDelivery(b *fieldBuilder, in *deliveryData, customer ubl.Address) *ubl.Delivery {
	if in == nil {
		return &ubl.Delivery{Address: customer}
	}
	d := &ubl.Delivery{
		Date:      b.date("delivery[delivery_date]", in.DeliveryDate, false),
		PartyName: b.str("delivery[name_place]", in.NamePlace, false, 200),
		Address: ubl.Address{
			Street:     b.str("delivery[street]", in.Street, false, 200),
			City:       b.str("delivery[city]", in.City, false, 200),
			PostalZone: b.str("delivery[postal_zone]", in.PostalZone, false, 200),
			Country:    b.country("delivery[country_code]", in.CountryCode, customer.Country),
		},
	}
	if id := b.str("delivery[id]", in.ID, false, 50); id != "" {
		d.LocationID = &ubl.Identifier{Value: id, Scheme: "0088"}
	}
	if d.Address.Street == "" && d.Address.City == "" && d.Address.PostalZone == "" {
		d.Address = customer
	}
	return d
}

// buildReferences reads references[i]: the order, contract, project, receipt, despatch advice,
// tender and, for credit and debit notes, the invoices they correct.
func buildReferences(b *fieldBuilder, refs []referenceData, d *ubl.Document) {
	for i, r := range refs {
		f := func(name string) string { return fmt.Sprintf("references[%d][%s]", i, name) }
		number := b.str(f("number"), r.Number, true, 50)
		switch strings.ToLower(string(r.DocumentType)) {
		case "order":
			d.References.Order = number
		case "sales_order":
			d.References.SalesOrder = number
		case "contract":
			d.References.Contract = number
		case "project":
			d.References.Project = number
		case "receipt":
			d.References.Receipt = number
		case "despatch", "dispatch":
			d.References.Despatch = number
		case "tender", "originator":
			d.References.Tender = number
		case "invoice":
			d.References.PrecedingInvoice = append(d.References.PrecedingInvoice,
				ubl.PrecedingInvoice{Number: number, IssueDate: b.date(f("date"), r.Date, false)})
		case "":
			b.fail(f("document_type"), CodeRequired)
		default:
			b.fail(f("document_type"), CodeInvalidValue)
		}
	}
}

// buildPayment reads the due date, payment terms and means. A credit note carries its due date in its
// payment means.
func buildPayment(b *fieldBuilder, in *documentData, d *ubl.Document) {
	due := b.date("due_date", in.DueDate, false)
	if termsDue := b.date("payment_terms[due_date]", in.PaymentTerms.DueDate, false); due == "" {
		due = termsDue
	}
	d.PaymentTerms = b.str("payment_terms[note]", in.PaymentTerms.Note, false, 200)
	var pm *ubl.PaymentMeans
	if m := in.PaymentMeans; m != nil {
		pm = &ubl.PaymentMeans{Code: strings.ToUpper(b.str("payment_means[code]", m.Code, true, 10))}
		if e := b.str("payment_means[atm_payment_entity]", m.ATMPaymentEntity, false, 20); e != "" {
			pm.Code = "#ENTITY@ATMPAYMENT#" + e + "#"
			pm.PaymentID = "#REFERENCE@ATMPAYMENT#" + b.str("payment_means[atm_payment_reference]", m.ATMPaymentReference, true, 20) + "#"
			if v := b.dec("payment_means[atm_payment_value]", m.ATMPaymentValue, false, 2, false); v != nil {
				pm.Name = "#DESCRIPTION@ATMPAYMENT#" + v.StringFixed(2) + "#"
			}
		}
		if iban := b.str("payment_means[iban]", m.IBAN, false, 34); iban != "" {
			pm.Accounts = []ubl.Account{{ID: strings.ReplaceAll(iban, " ", ""), Name: b.str("payment_means[account_name]", m.AccountName, false, 200),
				Branch: b.str("payment_means[bic]", m.BIC, false, 11)}}
		}
		if card := b.str("payment_means[card_number]", m.CardNumber, false, 20); card != "" {
			pm.Card = &ubl.Card{PrimaryAccountNumber: card, Holder: b.str("payment_means[card_name]", m.CardName, false, 200)}
		}
		if mandate := b.str("payment_means[debited_mandate]", m.DebitedMandate, false, 50); mandate != "" {
			pm.Mandate = &ubl.Mandate{ID: mandate, DebitedAccount: b.str("payment_means[debited_account]", m.DebitedAccount, false, 34)}
		}
	}
	if d.Kind == ubl.KindCreditNote && due != "" {
		if pm == nil {
			pm = &ubl.PaymentMeans{Code: "OU"}
		}
		pm.DueDate = due
	} else {
		d.DueDate = due
	}
	if pm != nil {
		d.PaymentMeans = []ubl.PaymentMeans{*pm}
	}
}

// vatCode maps the tax codes integrators send (the AT's NOR, INT, RED, ISE, OUT, or the UNCL 5305
// codes CIUS-PT accepts) and, when none is sent, infers the AT code from the rate.
func vatCode(code string, percent decimal.Decimal) (string, bool) {
	code = strings.ToUpper(code)
	switch code {
	case "NOR", "INT", "RED", "ISE", "OUT", "NS", "S", "AA", "E", "Z", "AE", "K", "G", "O", "NA":
		if code == "NS" {
			code = "OUT"
		}
		return code, true
	case "":
	default:
		return "", false
	}
	switch percent.String() {
	case "0":
		return "ISE", true
	case "6", "5", "4":
		return "RED", true
	case "13", "12", "9":
		return "INT", true
	}
	return "NOR", true
}

func buildLine(b *fieldBuilder, field string, index int, in *lineData) ubl.Line {
	f := func(name string) string { return field + "[" + name + "]" }
	l := ubl.Line{
		ID:   cmp.Or(b.str(f("id"), in.ID, false, 50), strconv.Itoa(index+1)),
		Note: b.str(f("note"), in.Note, false, 1000),
		Unit: strings.ToUpper(cmp.Or(b.str(f("unit"), in.Unit, false, 10), "C62")),
		Item: ubl.Item{
			Name:          b.str(f("name"), in.Name, true, 200),
			Description:   b.str(f("description"), in.Description, false, 1000),
			SellerID:      b.str(f("seller_number"), in.SellerNumber, false, 50),
			BuyerID:       b.str(f("buyer_number"), in.BuyerNumber, false, 50),
			OriginCountry: b.country(f("origin_country"), in.OriginCountry, ""),
		},
	}
	if q := b.dec(f("quantity"), in.Quantity, true, 3, true); q != nil {
		l.Quantity = *q
	}
	l.Price.Net = b.dec(f("price"), in.Price, true, 8, false)
	if bq := b.dec(f("base_quantity"), in.BaseQuantity, false, 3, false); bq != nil {
		if bq.Sign() == 0 {
			b.fail(f("base_quantity"), CodeInvalidValue)
		}
		l.Price.BaseQuantity, l.Price.BaseUnit = bq, l.Unit
	}
	if pd := in.PriceDiscount; pd != nil {
		l.Price.Discount = b.dec(f("price_discount")+"[amount]", pd.Amount, true, 8, false)
		l.Price.Gross = b.dec(f("price_discount")+"[base_amount]", pd.BaseAmount, true, 8, false)
		if l.Price.Discount != nil && l.Price.Gross != nil && l.Price.Net != nil &&
			!l.Price.Gross.Sub(*l.Price.Discount).Equal(*l.Price.Net) {
			b.fail(f("price"), CodeInvalidValue)
		}
	}
	if ean := b.str(f("ean_item_identification"), in.EANItemIdentification, false, 50); ean != "" {
		l.Item.StandardID = &ubl.Identifier{Value: ean, Scheme: "0160"}
	}
	if cc := b.str(f("commodity_classification"), in.CommodityClassification, false, 50); cc != "" {
		l.Item.Classifications = []ubl.Classification{{Code: cc, ListID: "STI"}}
	}
	switch len(in.Taxes) {
	case 0:
		b.fail(f("taxes"), CodeRequired)
	case 1:
	default:
		b.fail(f("taxes"), CodeInvalidValue) // one VAT category per line
	}
	for j, t := range in.Taxes[:min(1, len(in.Taxes))] {
		tf := func(name string) string { return fmt.Sprintf("%s[taxes][%d][%s]", field, j, name) }
		l.Item.VAT = buildCategory(b, tf, t.TaxPercent, t.TaxCode, t.TaxExemptionReasonCode, t.TaxExemptionReason)
	}
	for j := range in.DiscountsCharges {
		l.AllowancesCharges = append(l.AllowancesCharges, buildDiscountCharge(b, fmt.Sprintf("%s[discounts_charges][%d]", field, j), &in.DiscountsCharges[j], false))
	}
	for j, p := range in.AdditionalProperty {
		pf := func(name string) string { return fmt.Sprintf("%s[additional_property][%d][%s]", field, j, name) }
		l.Item.Properties = append(l.Item.Properties, ubl.Property{Name: b.str(pf("name"), p.Name, true, 200), Value: b.str(pf("value"), p.Value, true, 200)})
	}
	if c := in.Commitment; c != nil {
		l.AccountingCost = b.str(f("commitment")+"[number]", c.Number, true, 50)
		if line := b.str(f("commitment")+"[line]", c.Line, false, 50); line != "" {
			l.Item.Properties = append(l.Item.Properties, ubl.Property{Name: "#LINEID@COMMITMENTLINEREFERENCE#", Value: line})
		}
	}
	if p := in.InvoicePeriod; p != nil {
		l.Period = &ubl.Period{Start: b.date(f("invoice_period")+"[start_date]", p.StartDate, false),
			End: b.date(f("invoice_period")+"[end_date]", p.EndDate, false)}
	}
	for j, r := range in.References {
		rf := func(name string) string { return fmt.Sprintf("%s[references][%d][%s]", field, j, name) }
		switch strings.ToLower(string(r.DocumentType)) {
		case "order":
			l.OrderLineRef = b.str(rf("line"), cmp.Or(r.Line, r.Number), true, 50)
		case "":
			b.fail(rf("document_type"), CodeRequired)
		default:
			l.DocumentRef = b.str(rf("number"), r.Number, true, 50)
		}
	}
	return l
}

// buildCategory reads a VAT rate, code and exemption reason. Exempt categories need the reason.
func buildCategory(b *fieldBuilder, f func(string) string, percentText, codeText, reasonCode, reason text) ubl.TaxCategory {
	percent := b.dec(f("tax_percent"), percentText, true, 2, false)
	c := ubl.TaxCategory{Percent: percent, Scheme: "VAT"}
	if percent == nil {
		return c
	}
	code, ok := vatCode(string(codeText), *percent)
	if !ok {
		b.fail(f("tax_code"), CodeInvalidValue)
	}
	c.ID = code
	if percent.Sign() == 0 {
		c.ExemptionReasonCode = strings.ToUpper(b.str(f("tax_exemption_reason_code"), reasonCode, true, 10))
		c.ExemptionReason = b.str(f("tax_exemption_reason"), reason, true, 200)
	}
	return c
}

func buildDiscountCharge(b *fieldBuilder, field string, in *discountChargeData, documentLevel bool) ubl.AllowanceCharge {
	f := func(name string) string { return field + "[" + name + "]" }
	charge, ok := in.Type.flag()
	if !ok || in.Type == "" {
		b.fail(f("type"), map[bool]*Code{true: CodeRequired, false: CodeInvalidValue}[in.Type == ""])
	}
	ac := ubl.AllowanceCharge{
		Charge:     charge,
		Reason:     b.str(f("reason"), in.Reason, false, 200),
		ReasonCode: b.str(f("reason_code"), in.ReasonCode, false, 10),
		Base:       b.dec(f("base_amount"), in.BaseAmount, false, 2, false),
	}
	if a := b.dec(f("amount"), in.Amount, true, 2, false); a != nil {
		ac.Amount = *a
	}
	if ac.ReasonCode == "" {
		// CIUS-PT needs a reason code or text; a discount without either is a commercial discount (95),
		// a charge without either a generic charge (ABL: additional charge).
		if ac.Reason == "" {
			ac.ReasonCode = map[bool]string{false: "95", true: "ABL"}[charge]
		}
	}
	if documentLevel {
		cat := buildCategory(b, f, in.Percent, in.TaxCode, in.TaxExemptionReasonCode, in.TaxExemptionReason)
		ac.VAT = &cat
	}
	return ac
}

// buildWithholdings writes each withholding tax as the CIUS-PT tagged notes.
func buildWithholdings(b *fieldBuilder, in *documentData, d *ubl.Document) {
	for i, w := range in.WithholdingTax {
		f := func(name string) string { return fmt.Sprintf("withholding_tax[%d][%s]", i, name) }
		amount := b.dec(f("tax_amount"), w.TaxAmount, true, 2, false)
		kind := strings.ToUpper(b.str(f("type"), w.Type, true, 10))
		desc := b.str(f("description"), w.Description, false, 100)
		if amount == nil || kind == "" {
			continue
		}
		n := fmt.Sprintf("%03d", i+1)
		if desc != "" {
			d.Notes = append(d.Notes, "#WITHHOLDINGTAXDESCRIPTION@WITHHOLDINGTAX-"+n+"#"+desc+"#")
		}
		d.Notes = append(d.Notes, "#WITHHOLDINGTAXAMOUNT@WITHHOLDINGTAX-"+n+"#"+amount.StringFixed(2)+"#",
			"#WITHHOLDINGTAXTYPE@WITHHOLDINGTAX-"+n+"#"+kind+"#")
		d.Withholdings = append(d.Withholdings, ubl.Withholding{Amount: *amount,
			Subtotals: []ubl.VATBreakdown{{Tax: *amount, Category: ubl.TaxCategory{ID: kind, ExemptionReason: desc}}}})
	}
}

// buildQRCode embeds the AT QR code, with the ATCUD as its reference. With an ATCUD and no QR code,
// the code is built from the document once its amounts are known (completeQRCode).
func buildQRCode(b *fieldBuilder, in *documentData, d *ubl.Document) {
	qr, atcud := b.str("qr_code", in.QRCode, false, 1000), b.str("atcud", in.ATCUD, false, 50)
	if qr == "" && atcud == "" {
		return
	}
	d.Attachments = append(d.Attachments, ubl.Attachment{
		ID: cmp.Or(atcud, "NA"), IDScheme: "ANG", Description: "QR_CODE",
		MIMEType: "text/plain", Filename: "QR_CODE.txt", Content: base64.StdEncoding.EncodeToString([]byte(qr)),
	})
}

// completeQRCode writes the AT QR code (Portaria 195/2020) the integrator did not send.
func completeQRCode(d *ubl.Document) {
	for i, a := range d.Attachments {
		if a.Description == "QR_CODE" && a.Content == "" {
			d.Attachments[i].Content = base64.StdEncoding.EncodeToString([]byte(pdf.ATQRCode(d)))
		}
	}
}

// embedUploads embeds the visual PDF (described as the document's representation) and the further
// files.
func embedUploads(d *ubl.Document, uploads []upload) {
	representation := "INVOICE_REPRESENTATION"
	if d.Kind == ubl.KindCreditNote {
		representation = "CREDITNOTE_REPRESENTATION"
	}
	for i, u := range uploads {
		desc := "ATTACHMENT"
		if u.field == "file" {
			desc = representation
		}
		d.Attachments = append(d.Attachments, ubl.Attachment{
			ID: d.Number + "-" + strconv.Itoa(i+1), Description: desc, MIMEType: u.mime, Filename: u.name,
			Content: base64String(u.content),
		})
	}
}

// base64String encodes b straight into the string it returns (EncodeToString makes a copy as large).
func base64String(b []byte) string {
	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(len(b)))
	enc := base64.NewEncoder(base64.StdEncoding, &sb)
	enc.Write(b)
	enc.Close()
	return sb.String()
}

// checkSentAmounts compares the amounts the integrator computed with the service's; a difference of
// more than a cent is an error on the field.
func checkSentAmounts(b *fieldBuilder, in *documentData, d *ubl.Document) {
	cent := decimal.New(1, -2)
	check := func(field string, sent text, want decimal.Decimal) {
		if got := b.dec(field, sent, false, 8, true); got != nil && got.Sub(want).Abs().GreaterThan(cent) {
			b.fail(field, CodeAmountMismatch)
		}
	}
	hundred := decimal.NewFromInt(100)
	for i := range in.Lines {
		l := d.Lines[i]
		check(fmt.Sprintf("lines[%d][amount]", i), in.Lines[i].Amount, *l.NetAmount)
		if len(in.Lines[i].Taxes) == 1 && l.Item.VAT.Percent != nil {
			check(fmt.Sprintf("lines[%d][taxes][0][tax_amount]", i), in.Lines[i].Taxes[0].TaxAmount,
				l.NetAmount.Mul(*l.Item.VAT.Percent).Div(hundred).Round(2))
		}
	}
	check("discount_amount", in.DiscountAmount, *d.Totals.AllowanceTotal)
	check("charge_amount", in.ChargeAmount, *d.Totals.ChargeTotal)
	total := decimal.Zero
	for _, w := range d.Withholdings {
		total = total.Add(w.Amount)
	}
	check("withholding_tax_amount", in.WithholdingTaxAmount, total)
}
