package server

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/ubl"

	"github.com/shopspring/decimal"
)

// How documents look through the API: the fields of spec 2.3 and the incumbent's document shape.

// documentSummary is what a creation answers with.
type documentSummary struct {
	ID           string       `json:"id"`
	Number       string       `json:"number"`
	EmissionDate string       `json:"emission_date"`
	TypeFact     typeFactView `json:"type_document_fact"`
	TypeDocument aliasView    `json:"type_document"`
	State        codedValue   `json:"state_document"`
	ToSendStatus *toSendView  `json:"to_send_status,omitempty"`
}

type typeFactView struct {
	ID          string `json:"id"`
	Code        string `json:"code"`
	Alias       string `json:"alias"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

type aliasView struct {
	Alias       string `json:"alias"`
	Description string `json:"description"`
}

type toSendView struct {
	Code  string `json:"code"`
	Title string `json:"title"`
}

type ediStateView struct {
	Alias       string `json:"alias"`
	AliasESPAP  string `json:"alias_espap"`
	Description string `json:"description"`
}

var (
	// documentStates are the ids of the document states; their texts are the catalogue's api.state.*.
	documentStates = map[string]string{store.StateToSend: "1", store.StateSent: "2", store.StateAccepted: "3", store.StateRejected: "4"}
	// ediStates are the eSPap status codes of the EDI states; their texts are the catalogue's api.edi.*.
	ediStates = map[string]string{
		ediPending: "", ediDelivered: "RECEIVED", ediRegularization: "14", ediReception: "", ediError: "ERROR",
		ediAccepted: "ACCEPTED", ediReturned: "22", ediInPayment: "33", ediPaid: "29",
	}
)

func typeFactOf(typeCode, lang string) typeFactView {
	t, ok := docTypeOf(typeCode)
	if !ok {
		return typeFactView{ID: typeCode, Code: typeCode, Alias: "other", Type: typeCode, Description: typeCode}
	}
	return typeFactView{ID: t.Alias, Code: t.Code, Alias: t.Alias, Type: t.Type, Description: i18n.Text{PT: t.PT, EN: t.EN}.In(lang)}
}

// typeDocumentOf is issued for the issuer and received for the recipient.
func typeDocumentOf(d store.Document, viewer int64, lang string) aliasView {
	if viewer == d.IssuerID {
		return aliasView{"issued", i18n.T(lang, "api.type_document.issued")}
	}
	return aliasView{"received", i18n.T(lang, "api.type_document.received")}
}

func stateOf(state, lang string) codedValue {
	return codedValue{ID: documentStates[state], Alias: state, Description: i18n.T(lang, "api.state."+state)}
}

func toSendOf(d store.Document, lang string) *toSendView {
	if d.State != store.StateToSend || d.ToSendStatus == "" {
		return nil
	}
	return &toSendView{Code: d.ToSendStatus, Title: i18n.T(lang, "api.tosend."+d.ToSendStatus)}
}

func summarize(d store.Document, viewer int64, lang string) documentSummary {
	return documentSummary{
		ID: d.PublicID, Number: d.Number, EmissionDate: d.EmissionDate,
		TypeFact:     typeFactOf(d.TypeCode, lang),
		TypeDocument: typeDocumentOf(d, viewer, lang),
		State:        stateOf(d.State, lang),
		ToSendStatus: toSendOf(d, lang),
	}
}

// documentView is a whole document as GET /apps/documents/{id} answers it.
type documentView struct {
	documentSummary
	EDIState                  ediStateView      `json:"state_edi_document"`
	DueDate                   string            `json:"due_date,omitempty"`
	TaxPointDate              string            `json:"tax_point_date,omitempty"`
	InvoicePeriod             *periodView       `json:"invoice_period,omitempty"`
	CreatedAt                 string            `json:"created_at"`
	UpdatedAt                 string            `json:"updated_at"`
	Currency                  currencyView      `json:"currency"`
	DecimalPlace              string            `json:"decimal_place"`
	ATCUD                     string            `json:"atcud,omitempty"`
	CommitmentNumber          string            `json:"commitment_number,omitempty"`
	BuyerReference            string            `json:"buyer_reference,omitempty"`
	ProjectReference          string            `json:"project_reference,omitempty"`
	DespatchDocumentReference string            `json:"despatch_document_reference,omitempty"`
	ReceiptDocumentReference  string            `json:"receipt_document_reference,omitempty"`
	Supplier                  partyView         `json:"supplier"`
	Customer                  partyView         `json:"customer"`
	Payee                     *partyView        `json:"payee,omitempty"`
	TaxRepresentative         *partyView        `json:"tax_representative,omitempty"`
	Delivery                  *deliveryView     `json:"delivery,omitempty"`
	Amounts                   amountsView       `json:"amounts"`
	Taxes                     []taxView         `json:"taxes"`
	Lines                     []lineView        `json:"lines"`
	AllowanceCharge           []allowanceView   `json:"allowance_charge"`
	WithholdingTax            []withholdingView `json:"withholding_tax"`
	PaymentTerms              *paymentTermsView `json:"payment_terms,omitempty"`
	PaymentMeans              []paymentView     `json:"payment_means"`
	References                []referenceView   `json:"references"`
	Notes                     []string          `json:"notes"`
	Attachments               []attachmentView  `json:"attachments"`
	Reasons                   []reasonView      `json:"reasons"`
	Emails                    []emailView       `json:"emails"`
	ProcessState              *processStateView `json:"process_state,omitempty"`
	ImportedAt                *string           `json:"imported_at"`
	SendByEmail               bool              `json:"send_by_email"`
	XMLURL                    string            `json:"xml_url"`
	PDFURL                    string            `json:"pdf_url"`
}

type processStateView struct {
	Code      string `json:"identification_code"`
	CreatedAt string `json:"created_at"`
}

type periodView struct {
	StartDate string `json:"start_date,omitempty"`
	EndDate   string `json:"end_date,omitempty"`
}

type currencyView struct {
	Code   string `json:"code"`
	Symbol string `json:"symbol"`
}

type partyView struct {
	Number           string `json:"number"`
	CountryCode      string `json:"country_code"`
	TaxScheme        string `json:"tax_scheme,omitempty"`
	Name             string `json:"name"`
	GLN              string `json:"gln,omitempty"`
	Street           string `json:"street,omitempty"`
	AdditionalStreet string `json:"additional_street,omitempty"`
	Building         string `json:"building,omitempty"`
	BuildingNumber   string `json:"building_number,omitempty"`
	City             string `json:"city,omitempty"`
	PostalZone       string `json:"postal_zone,omitempty"`
	Region           string `json:"region,omitempty"`
	Email            string `json:"email,omitempty"`
	Telephone        string `json:"telephone,omitempty"`
	Telefax          string `json:"telefax,omitempty"`
	CompanyLegalForm string `json:"company_legal_form,omitempty"`
}

type deliveryView struct {
	ID           string `json:"id,omitempty"`
	DeliveryDate string `json:"delivery_date,omitempty"`
	NamePlace    string `json:"name_place,omitempty"`
	Street       string `json:"street,omitempty"`
	City         string `json:"city,omitempty"`
	PostalZone   string `json:"postal_zone,omitempty"`
	CountryCode  string `json:"country_code,omitempty"`
}

type amountsView struct {
	Amount                string `json:"amount"`
	TaxAmount             string `json:"tax_amount"`
	TotalAmount           string `json:"total_amount"`
	LineAmount            string `json:"line_amount"`
	DiscountAmount        string `json:"discount_amount"`
	ChargeAmount          string `json:"charge_amount"`
	PrepaidAmount         string `json:"prepaid_amount"`
	PayableRoundingAmount string `json:"payable_rounding_amount"`
	PayableAmount         string `json:"payable_amount"`
	WithholdingTaxAmount  string `json:"withholding_tax_amount"`
}

type taxView struct {
	TaxableAmount          string `json:"taxable_amount"`
	TaxAmount              string `json:"tax_amount"`
	ID                     string `json:"id"`
	Percent                string `json:"percent"`
	Code                   string `json:"code"`
	TaxExemptionReasonCode string `json:"tax_exemption_reason_code,omitempty"`
	TaxExemptionReason     string `json:"tax_exemption_reason,omitempty"`
}

type lineView struct {
	ID                      string          `json:"id"`
	Name                    string          `json:"name"`
	Description             string          `json:"description,omitempty"`
	Note                    string          `json:"note,omitempty"`
	Quantity                string          `json:"quantity"`
	Unit                    string          `json:"unit"`
	PriceAmount             string          `json:"price_amount"`
	BaseQuantity            string          `json:"base_quantity,omitempty"`
	Amount                  string          `json:"amount"`
	TaxAmount               string          `json:"tax_amount"`
	SellerNumber            string          `json:"seller_number,omitempty"`
	BuyerNumber             string          `json:"buyer_number,omitempty"`
	EANItemIdentification   string          `json:"ean_item_identification,omitempty"`
	OriginCountry           string          `json:"origin_country,omitempty"`
	CommodityClassification string          `json:"commodity_classification,omitempty"`
	TaxesInfo               []taxView       `json:"taxes_info"`
	AllowanceCharge         []allowanceView `json:"allowance_charge"`
	PriceDiscount           *priceDiscView  `json:"price_discount,omitempty"`
	AdditionalProperty      []propertyView  `json:"additional_property"`
	Commitment              *commitmentView `json:"commitment,omitempty"`
	InvoicePeriod           *periodView     `json:"invoice_period,omitempty"`
	OrderLineReference      string          `json:"order_line_reference,omitempty"`
}

type allowanceView struct {
	Type       string   `json:"type"`
	ReasonCode string   `json:"reason_code,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Amount     string   `json:"amount"`
	BaseAmount string   `json:"base_amount,omitempty"`
	TaxInfo    *taxView `json:"tax_info,omitempty"`
}

type priceDiscView struct {
	Type       string `json:"type"`
	Amount     string `json:"amount"`
	BaseAmount string `json:"base_amount,omitempty"`
}

type propertyView struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type commitmentView struct {
	Number string `json:"number"`
	Line   string `json:"line,omitempty"`
}

type withholdingView struct {
	Type        string `json:"type"`
	TaxAmount   string `json:"tax_amount"`
	Description string `json:"description,omitempty"`
}

type paymentTermsView struct {
	Note    string `json:"note,omitempty"`
	DueDate string `json:"due_date,omitempty"`
}

type paymentView struct {
	Code           string `json:"code"`
	Name           string `json:"name,omitempty"`
	PaymentID      string `json:"payment_id,omitempty"`
	IBAN           string `json:"iban,omitempty"`
	AccountName    string `json:"account_name,omitempty"`
	BIC            string `json:"bic,omitempty"`
	CardNumber     string `json:"card_number,omitempty"`
	CardName       string `json:"card_name,omitempty"`
	DebitedMandate string `json:"debited_mandate,omitempty"`
	DebitedAccount string `json:"debited_account,omitempty"`
}

type referenceView struct {
	DocumentType string `json:"document_type"`
	Number       string `json:"number"`
	Date         string `json:"date,omitempty"`
}

type attachmentView struct {
	Type       string `json:"type"`
	File       string `json:"file"`
	Identifier string `json:"identifier"`
	UBLType    string `json:"ubl_type"`
	MIMEType   string `json:"mime_type"`
	Size       int64  `json:"size"`
	Hash       string `json:"hash"`
}

// emailView is an e-mail record (spec 2.4): created_at is when the mail server accepted it, null
// before; state and error say more than b_sent (queued, sent, failed, returned).
type emailView struct {
	ID        string       `json:"id"`
	BOpen     bool         `json:"b_open"`
	BSent     bool         `json:"b_sent"`
	CreatedAt *string      `json:"created_at"`
	OpenedAt  *string      `json:"opened_at"`
	Address   emailAddress `json:"address"`
	State     string       `json:"state"`
	Error     string       `json:"error,omitempty"`
}

func viewEmail(e store.Email) emailView {
	v := emailView{ID: e.PublicID, BOpen: e.OpenedAt != "", BSent: e.State == store.EmailSent,
		Address: emailAddress{Emails: []string{e.Address}}, State: e.State}
	if e.SentAt != "" {
		v.CreatedAt = &e.SentAt
	}
	if e.OpenedAt != "" {
		v.OpenedAt = &e.OpenedAt
	}
	if e.State != store.EmailSent {
		v.Error = e.LastError
	}
	return v
}

type emailAddress struct {
	Emails []string `json:"emails"`
}

var currencySymbols = map[string]string{"EUR": "€", "USD": "$", "GBP": "£", "CHF": "CHF", "BRL": "R$", "AOA": "Kz"}

// documentRecords are what a document's view shows beside the document itself.
type documentRecords struct {
	files   []store.File
	history []store.HistoryEntry
	emails  []store.Email // only the issuer's view shows them
}

// documentView reads a document's records and builds its view as the viewer sees it.
func (s *Server) documentView(ctx context.Context, d store.Document, viewer int64, url fileURL, lang string) (documentView, error) {
	var r documentRecords
	var err error
	if r.files, err = s.store.DocumentFiles(ctx, d.ID); err != nil {
		return documentView{}, err
	}
	if r.history, err = s.historyFor(ctx, d, viewer); err != nil {
		return documentView{}, err
	}
	if viewer == d.IssuerID {
		if r.emails, err = s.store.DocumentEmails(ctx, d.ID); err != nil {
			return documentView{}, err
		}
	}
	return viewDocument(d, r, viewer, url, lang)
}

// viewDocument builds the whole view as the viewer (issuer or recipient) sees it.
func viewDocument(d store.Document, r documentRecords, viewer int64, url fileURL, lang string) (documentView, error) {
	stored, _, err := decodeDocumentData(d.Data)
	if err != nil {
		return documentView{}, err
	}
	m := *stored
	v := documentView{
		documentSummary: summarize(d, viewer, lang),
		EDIState:        viewEDIState(d.EDIState, lang),
		DueDate:         m.DueDate,
		TaxPointDate:    m.TaxPointDate,
		CreatedAt:       d.CreatedAt, UpdatedAt: d.UpdatedAt,
		Currency:                  currencyView{m.Currency, cmp.Or(currencySymbols[m.Currency], m.Currency)},
		DecimalPlace:              "2",
		CommitmentNumber:          m.AccountingCost,
		BuyerReference:            m.BuyerReference,
		ProjectReference:          m.References.Project,
		DespatchDocumentReference: m.References.Despatch,
		ReceiptDocumentReference:  m.References.Receipt,
		Supplier:                  viewParty(m.Seller),
		Customer:                  viewParty(m.Buyer),
		Amounts:                   viewAmounts(&m),
		Taxes:                     []taxView{},
		Lines:                     []lineView{},
		AllowanceCharge:           []allowanceView{},
		WithholdingTax:            []withholdingView{},
		PaymentMeans:              []paymentView{},
		References:                viewReferences(&m),
		Notes:                     nonNilStrings(m.Notes),
		Attachments:               []attachmentView{},
		Reasons:                   []reasonView{},
		Emails:                    []emailView{},
		SendByEmail:               d.SendByEmail,
		XMLURL:                    url("xml"),
		PDFURL:                    url("pdf"),
	}
	if m.Period != nil {
		v.InvoicePeriod = &periodView{m.Period.Start, m.Period.End}
	}
	if d.ProcessState != "" {
		v.ProcessState = &processStateView{Code: d.ProcessState, CreatedAt: d.ProcessStateAt}
	}
	if d.ImportedAt != "" {
		v.ImportedAt = &d.ImportedAt
	}
	if m.Payee != nil {
		p := viewParty(*m.Payee)
		v.Payee = &p
	}
	if m.TaxRepresentative != nil {
		p := viewParty(*m.TaxRepresentative)
		v.TaxRepresentative = &p
	}
	if dl := m.Delivery; dl != nil {
		v.Delivery = &deliveryView{DeliveryDate: dl.Date, NamePlace: dl.PartyName, Street: dl.Address.Street, City: dl.Address.City,
			PostalZone: dl.Address.PostalZone, CountryCode: dl.Address.Country}
		if dl.LocationID != nil {
			v.Delivery.ID = dl.LocationID.Value
		}
	}
	for _, b := range m.VATBreakdown {
		v.Taxes = append(v.Taxes, viewTax(b.Taxable, b.Tax, b.Category))
	}
	for _, l := range m.Lines {
		v.Lines = append(v.Lines, viewLine(l))
	}
	for _, ac := range m.AllowancesCharges {
		v.AllowanceCharge = append(v.AllowanceCharge, viewAllowance(ac))
	}
	for _, w := range m.Withholdings {
		wv := withholdingView{TaxAmount: w.Amount.StringFixed(2)}
		if len(w.Subtotals) > 0 {
			wv.Type, wv.Description = w.Subtotals[0].Category.ID, w.Subtotals[0].Category.ExemptionReason
		}
		v.WithholdingTax = append(v.WithholdingTax, wv)
	}
	if m.PaymentTerms != "" || m.DueDate != "" {
		v.PaymentTerms = &paymentTermsView{Note: m.PaymentTerms, DueDate: m.DueDate}
	}
	for _, pm := range m.PaymentMeans {
		v.PaymentMeans = append(v.PaymentMeans, viewPayment(pm))
	}
	for _, a := range m.Attachments {
		if a.IDScheme == "ANG" {
			v.ATCUD = a.ID
		}
	}
	for _, f := range r.files {
		f.Name = cleanFileName(f.Name, f.MIME)
		av := attachmentView{Type: fileType(f), File: url(f.PublicID), Identifier: f.Name,
			UBLType: strings.ToLower(ublTypeOf(f, &m)), MIMEType: f.MIME, Size: f.Size, Hash: hex.EncodeToString(f.SHA256)}
		v.Attachments = append(v.Attachments, av)
	}
	for _, e := range r.emails {
		v.Emails = append(v.Emails, viewEmail(e))
	}
	for _, h := range r.history {
		if h.Kind == "state" && h.State == store.StateRejected {
			var data struct {
				Reason string `json:"reason"`
			}
			json.Unmarshal(h.Data, &data)
			v.Reasons = append(v.Reasons, reasonView{Reason: data.Reason, CreatedAt: h.CreatedAt})
		}
	}
	return v, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func viewEDIState(alias, lang string) ediStateView {
	return ediStateView{Alias: alias, AliasESPAP: ediStates[alias], Description: i18n.T(lang, "api.edi."+alias)}
}

func viewParty(p ubl.Party) partyView {
	country, nif := splitTaxID(cmp.Or(p.VATID, p.TaxRegistration), p.Address.Country)
	v := partyView{
		Number: nif, CountryCode: cmp.Or(p.Address.Country, country), Name: cmp.Or(p.LegalName, p.Name),
		Street: p.Address.Street, AdditionalStreet: p.Address.AdditionalStreet, Building: p.Address.BuildingName,
		BuildingNumber: p.Address.BuildingNumber, City: p.Address.City, PostalZone: p.Address.PostalZone,
		Region: p.Address.Subdivision, Email: p.Contact.Email, Telephone: p.Contact.Telephone, Telefax: p.Contact.Telefax,
		CompanyLegalForm: p.LegalForm,
	}
	if p.VATID != "" {
		v.TaxScheme = "VAT"
	}
	if p.EndpointID != nil && p.EndpointID.Scheme == "0088" {
		v.GLN = p.EndpointID.Value
	}
	return v
}

func money(d *decimal.Decimal) string {
	if d == nil {
		return "0.00"
	}
	return d.StringFixed(2)
}

func viewAmounts(m *ubl.Document) amountsView {
	withheld := decimal.Zero
	for _, w := range m.Withholdings {
		withheld = withheld.Add(w.Amount)
	}
	t := m.Totals
	return amountsView{
		Amount: money(t.TaxExclusive), TaxAmount: money(m.TaxTotal), TotalAmount: money(t.TaxInclusive),
		LineAmount: money(&t.LineNet), DiscountAmount: money(t.AllowanceTotal), ChargeAmount: money(t.ChargeTotal),
		PrepaidAmount: money(t.Prepaid), PayableRoundingAmount: money(t.Rounding), PayableAmount: money(&t.Payable),
		WithholdingTaxAmount: withheld.StringFixed(2),
	}
}

func viewTax(taxable, tax decimal.Decimal, c ubl.TaxCategory) taxView {
	v := taxView{TaxableAmount: taxable.StringFixed(2), TaxAmount: tax.StringFixed(2), ID: c.ID, Percent: money(c.Percent),
		Code: cmp.Or(c.Scheme, "VAT"), TaxExemptionReasonCode: c.ExemptionReasonCode, TaxExemptionReason: c.ExemptionReason}
	return v
}

func viewAllowance(ac ubl.AllowanceCharge) allowanceView {
	v := allowanceView{Type: strconv.FormatBool(ac.Charge), ReasonCode: ac.ReasonCode, Reason: ac.Reason, Amount: ac.Amount.StringFixed(2)}
	if ac.Base != nil {
		v.BaseAmount = ac.Base.StringFixed(2)
	}
	if ac.VAT != nil {
		t := viewTax(decimal.Zero, decimal.Zero, *ac.VAT)
		t.TaxableAmount, t.TaxAmount = "", ""
		v.TaxInfo = &t
	}
	return v
}

func viewLine(l ubl.Line) lineView {
	net := decimal.Zero
	if l.NetAmount != nil {
		net = *l.NetAmount
	}
	tax := decimal.Zero
	if l.Item.VAT.Percent != nil {
		tax = net.Mul(*l.Item.VAT.Percent).Div(decimal.NewFromInt(100)).Round(2)
	}
	v := lineView{
		ID: l.ID, Name: l.Item.Name, Description: l.Item.Description, Note: l.Note, Quantity: l.Quantity.StringFixed(3), Unit: l.Unit,
		Amount: decimalText(net), TaxAmount: tax.StringFixed(2), SellerNumber: l.Item.SellerID, BuyerNumber: l.Item.BuyerID,
		OriginCountry: l.Item.OriginCountry, TaxesInfo: []taxView{viewTax(net, tax, l.Item.VAT)},
		AllowanceCharge: []allowanceView{}, AdditionalProperty: []propertyView{}, OrderLineReference: l.OrderLineRef,
	}
	if l.Price.Net != nil {
		v.PriceAmount = decimalText(*l.Price.Net)
	}
	if l.Price.BaseQuantity != nil {
		v.BaseQuantity = l.Price.BaseQuantity.StringFixed(3)
	}
	if l.Item.StandardID != nil {
		v.EANItemIdentification = l.Item.StandardID.Value
	}
	if len(l.Item.Classifications) > 0 {
		v.CommodityClassification = l.Item.Classifications[0].Code
	}
	for _, ac := range l.AllowancesCharges {
		v.AllowanceCharge = append(v.AllowanceCharge, viewAllowance(ac))
	}
	if l.Price.Discount != nil {
		v.PriceDiscount = &priceDiscView{Type: "false", Amount: decimalText(*l.Price.Discount)}
		if l.Price.Gross != nil {
			v.PriceDiscount.BaseAmount = decimalText(*l.Price.Gross)
		}
	}
	for _, p := range l.Item.Properties {
		if p.Name == "#LINEID@COMMITMENTLINEREFERENCE#" {
			v.Commitment = &commitmentView{Number: l.AccountingCost, Line: p.Value}
			continue
		}
		v.AdditionalProperty = append(v.AdditionalProperty, propertyView{p.Name, p.Value})
	}
	if v.Commitment == nil && l.AccountingCost != "" {
		v.Commitment = &commitmentView{Number: l.AccountingCost}
	}
	if l.Period != nil {
		v.InvoicePeriod = &periodView{l.Period.Start, l.Period.End}
	}
	return v
}

// decimalText writes an amount with two decimals, or more when it has them (prices may have eight).
func decimalText(d decimal.Decimal) string {
	s := d.String()
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 2 {
		return s
	}
	return d.StringFixed(2)
}

func viewPayment(pm ubl.PaymentMeans) paymentView {
	v := paymentView{Code: pm.Code, Name: pm.Name, PaymentID: pm.PaymentID}
	if len(pm.Accounts) > 0 {
		v.IBAN, v.AccountName, v.BIC = pm.Accounts[0].ID, pm.Accounts[0].Name, pm.Accounts[0].Branch
	}
	if pm.Card != nil {
		v.CardNumber, v.CardName = pm.Card.PrimaryAccountNumber, pm.Card.Holder
	}
	if pm.Mandate != nil {
		v.DebitedMandate, v.DebitedAccount = pm.Mandate.ID, pm.Mandate.DebitedAccount
	}
	return v
}

func viewReferences(m *ubl.Document) []referenceView {
	out := []referenceView{}
	r := m.References
	add := func(kind, number string) {
		if number != "" {
			out = append(out, referenceView{DocumentType: kind, Number: number})
		}
	}
	add("order", r.Order)
	add("sales_order", r.SalesOrder)
	add("contract", r.Contract)
	add("receipt", r.Receipt)
	add("despatch", r.Despatch)
	add("tender", r.Tender)
	add("quotation", r.Quotation)
	for _, p := range r.PrecedingInvoice {
		out = append(out, referenceView{DocumentType: "invoice", Number: p.Number, Date: p.IssueDate})
	}
	return out
}

// fileType is the attachment type the incumbent shows: the file's extension.
func fileType(f store.File) string {
	if i := strings.LastIndexByte(f.Name, '.'); i >= 0 && i < len(f.Name)-1 {
		return strings.ToLower(f.Name[i+1:])
	}
	return f.Role
}

// ublTypeOf is how the document describes the file (its DocumentDescription), or xml_representation
// for the XML itself. f has its clean name.
func ublTypeOf(f store.File, m *ubl.Document) string {
	if f.Role == store.FileXML {
		return "xml_representation"
	}
	for _, a := range m.Attachments {
		if embeddedName(a) == f.Name && a.Description != "" {
			return a.Description
		}
	}
	return "attachment"
}
