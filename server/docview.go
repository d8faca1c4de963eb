package server

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

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

// toSendView carries the spec's names (code, title) and the incumbent's (alias, description) for the
// same two values.
type toSendView struct {
	Code        string `json:"code"`
	Title       string `json:"title"`
	Alias       string `json:"alias"`
	Description string `json:"description"`
}

type ediStateView struct {
	ID          string `json:"id"`
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
	title := i18n.T(lang, "api.tosend."+d.ToSendStatus)
	return &toSendView{Code: d.ToSendStatus, Title: title, Alias: d.ToSendStatus, Description: title}
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

// documentView is a whole document as GET /apps/documents/{id} answers it and GET /apps/documents lists
// it: every key of the incumbent's document shape (null or empty when it does not apply), with the
// spec's object forms for type_document_fact, type_document and state_document, and the keys this
// service adds.
type documentView struct {
	ID                        string            `json:"id"`
	Number                    string            `json:"number"`
	ATCUD                     *string           `json:"atcud"`
	EmissionDate              string            `json:"emission_date"`
	DueDate                   *string           `json:"due_date"`
	TaxPointDate              *string           `json:"tax_point_date"`
	InvoicePeriod             *periodView       `json:"invoice_period"`
	CreatedAt                 string            `json:"created_at"`
	UpdatedAt                 string            `json:"updated_at"`
	TypeFact                  typeFactView      `json:"type_document_fact"`
	TypeDocument              aliasView         `json:"type_document"`
	State                     codedValue        `json:"state_document"`
	ToSendStatus              *toSendView       `json:"to_send_status"`
	EDIState                  ediStateView      `json:"state_edi_document"`
	Currency                  currencyView      `json:"currency"`
	DecimalPlace              string            `json:"decimal_place"`
	Supplier                  partyView         `json:"supplier"`
	Customer                  partyView         `json:"customer"`
	Platform                  *string           `json:"platform"`
	Attachments               []attachmentView  `json:"attachments"`
	Amounts                   amountsView       `json:"amounts"`
	Taxes                     []taxView         `json:"taxes"`
	ProcessState              *processStateView `json:"process_state"`
	ValidityPeriod            *string           `json:"validity_period"`
	BuyerNumber               *string           `json:"buyer_number"`
	ExchangeCurrency          *string           `json:"exchange_currency"`
	ExchangeCalculationRate   *string           `json:"exchange_calculation_rate"`
	CommitmentNumber          *string           `json:"commitment_number"`
	BuyerReference            *string           `json:"buyer_reference"`
	ProjectReference          *string           `json:"project_reference"`
	DespatchDocumentReference *string           `json:"despatch_document_reference"`
	ReceiptDocumentReference  *string           `json:"receipt_document_reference"`
	Payee                     *partyView        `json:"payee"`
	TaxRepresentative         *partyView        `json:"tax_representative"`
	Lines                     []lineView        `json:"lines"`
	AllowanceCharge           []allowanceView   `json:"allowance_charge"`
	WithholdingTax            []withholdingView `json:"withholding_tax"`
	PaymentTerms              *paymentTermsView `json:"payment_terms"`
	PaymentMeans              *paymentView      `json:"payment_means"`
	Delivery                  *deliveryView     `json:"delivery"`
	References                []referenceView   `json:"references"`
	Informations              []informationView `json:"informations"`
	AdditionalInformations    []additionalView  `json:"additional_informations"`
	Reasons                   []reasonView      `json:"reasons"`
	Notes                     []string          `json:"notes"`
	DocumentRelated           []relatedView     `json:"document_related"`
	Emails                    []emailView       `json:"emails"`
	ImportedAt                *string           `json:"imported_at"`
	SendByEmail               bool              `json:"send_by_email"`
	XMLURL                    string            `json:"xml_url"`
	PDFURL                    string            `json:"pdf_url"`
}

// processStateView is the recipient's process state: the incumbent's id, name and group (this
// service has no groups: null), and the identification_code it is set by.
type processStateView struct {
	ID        string     `json:"id"`
	Code      string     `json:"identification_code"`
	Name      string     `json:"name"`
	Group     *groupView `json:"group"`
	CreatedAt string     `json:"created_at"`
}

type groupView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// informationView is a reference the incumbent lists as information: the commitment number.
type informationView struct {
	Description string `json:"description"`
	Type        string `json:"type"`
	Number      string `json:"number"`
	Line        string `json:"line"`
}

type additionalView struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

type relatedView struct {
	Description string `json:"description"`
	File        string `json:"file"`
}

type periodView struct {
	StartDate string `json:"start_date"`
	EndDate   string `json:"end_date"`
}

type currencyView struct {
	Code   string `json:"code"`
	Symbol string `json:"symbol"`
}

// partyView is a party of the document. id and country (the country's name) are the incumbent's keys
// for its own entity ids and country names, which this service does not keep: null.
type partyView struct {
	ID               *string `json:"id"`
	Number           string  `json:"number"`
	CountryCode      string  `json:"country_code"`
	Country          *string `json:"country"`
	TaxScheme        string  `json:"tax_scheme"`
	Name             string  `json:"name"`
	GLN              string  `json:"gln"`
	Street           string  `json:"street"`
	AdditionalStreet string  `json:"additional_street"`
	Building         string  `json:"building"`
	BuildingNumber   string  `json:"building_number"`
	City             string  `json:"city"`
	PostalZone       string  `json:"postal_zone"`
	Region           string  `json:"region"`
	Email            string  `json:"email"`
	Telephone        string  `json:"telephone"`
	Telefax          string  `json:"telefax"`
	CompanyLegalForm string  `json:"company_legal_form"`
}

type deliveryView struct {
	ID           string  `json:"id"`
	DeliveryDate string  `json:"delivery_date"`
	NamePlace    string  `json:"name_place"`
	Street       string  `json:"street"`
	City         string  `json:"city"`
	PostalZone   string  `json:"postal_zone"`
	CountryCode  string  `json:"country_code"`
	CountryName  *string `json:"country_name"`
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

// taxView is a tax: id and name are both the VAT category as the document gives it (a CIUS-PT code
// such as NOR, or a UNCL5305 code such as S).
type taxView struct {
	TaxableAmount          string `json:"taxable_amount,omitempty"`
	TaxAmount              string `json:"tax_amount,omitempty"`
	ID                     string `json:"id"`
	Name                   string `json:"name"`
	Percent                string `json:"percent"`
	Code                   string `json:"code"`
	TaxExemptionReasonCode string `json:"tax_exemption_reason_code"`
	TaxExemptionReason     string `json:"tax_exemption_reason"`
}

type lineView struct {
	ID                      string            `json:"id"`
	Name                    string            `json:"name"`
	Description             string            `json:"description"`
	Note                    string            `json:"note"`
	Notes                   []string          `json:"notes"`
	Quantity                string            `json:"quantity"`
	Unit                    string            `json:"unit"`
	PriceAmount             string            `json:"price_amount"`
	BaseQuantity            *string           `json:"base_quantity"`
	Currency                string            `json:"currency"`
	Amount                  string            `json:"amount"`
	TaxAmount               string            `json:"tax_amount"`
	SellerNumber            string            `json:"seller_number"`
	BuyerNumber             string            `json:"buyer_number"`
	SellerMaterialCode      *string           `json:"seller_material_code"`
	BuyerMaterialCode       *string           `json:"buyer_material_code"`
	EANItemIdentification   string            `json:"ean_item_identification"`
	OriginCountry           string            `json:"origin_country"`
	CommodityClassification string            `json:"commodity_classification"`
	TaxesInfo               []taxView         `json:"taxes_info"`
	AllowanceCharge         []allowanceView   `json:"allowance_charge"`
	PriceDiscount           *priceDiscView    `json:"price_discount"`
	AdditionalProperty      []propertyView    `json:"additional_property"`
	Commitment              *commitmentView   `json:"commitment"`
	Informations            []informationView `json:"informations"`
	References              []lineRefView     `json:"references"`
	InvoicePeriod           *periodView       `json:"invoice_period"`
	OrderLineReference      string            `json:"order_line_reference"`
}

// lineRefView is a line's reference to a line of another document (the order's).
type lineRefView struct {
	DocumentType string `json:"document_type"`
	Line         string `json:"line"`
}

type allowanceView struct {
	Type       string   `json:"type"`
	ReasonCode string   `json:"reason_code"`
	Reason     string   `json:"reason"`
	Amount     string   `json:"amount"`
	BaseAmount string   `json:"base_amount"`
	TaxInfo    *taxView `json:"tax_info,omitempty"`
}

type priceDiscView struct {
	Type       string `json:"type"`
	Amount     string `json:"amount"`
	BaseAmount string `json:"base_amount"`
}

type propertyView struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type commitmentView struct {
	Number string `json:"number"`
	Line   string `json:"line"`
}

type withholdingView struct {
	Type        string `json:"type"`
	TaxAmount   string `json:"tax_amount"`
	Description string `json:"description"`
}

type paymentTermsView struct {
	Note    string `json:"note"`
	DueDate string `json:"due_date"`
}

// paymentView is the document's (first) payment means, as the incumbent shows it: one object.
type paymentView struct {
	Code                string  `json:"code"`
	Name                string  `json:"name"`
	PaymentID           string  `json:"payment_id"`
	ATMPaymentEntity    string  `json:"atm_payment_entity"`
	ATMPaymentReference string  `json:"atm_payment_reference"`
	ATMPaymentValue     string  `json:"atm_payment_value"`
	IBAN                string  `json:"iban"`
	AccountName         string  `json:"account_name"`
	BIC                 string  `json:"bic"`
	CardNumber          string  `json:"card_number"`
	CardName            string  `json:"card_name"`
	Credits             *string `json:"credits"`
	DebitedMandate      string  `json:"debited_mandate"`
	DebitedAccount      string  `json:"debited_account"`
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
	files        []store.File
	rejections   []store.Rejection   // the ones the viewer may see
	emails       []store.Email       // only the issuer's view shows them
	processState *store.ProcessState // the recipient's, when it set one
	links        fileURL             // the viewer's public links to the files
}

// documentView reads a document's records and builds its view as the viewer sees it; url gives its
// xml_url and pdf_url.
func (s *Server) documentView(ctx context.Context, d store.Document, viewer int64, url fileURL, lang string) (documentView, error) {
	views, err := s.documentViews(ctx, []store.Document{d}, viewer, func(store.Document) fileURL { return url }, lang)
	if err != nil {
		return documentView{}, err
	}
	return views[0], nil
}

// documentViews builds the views of a page of documents as the viewer sees them, reading the records
// of all of them with one query of each kind; urls gives each document's xml_url and pdf_url.
func (s *Server) documentViews(ctx context.Context, docs []store.Document, viewer int64, urls func(store.Document) fileURL, lang string) ([]documentView, error) {
	ids := make([]int64, len(docs))
	var withoutData, issuer bool
	for i, d := range docs {
		ids[i] = d.ID
		withoutData = withoutData || d.Data == nil
		issuer = issuer || d.IssuerID == viewer
	}
	if withoutData {
		if err := s.store.DocumentsData(ctx, docs); err != nil {
			return nil, err
		}
	}
	files, err := s.store.FilesOfDocuments(ctx, ids)
	if err != nil {
		return nil, err
	}
	rejections, err := s.store.RejectionsOfDocuments(ctx, ids)
	if err != nil {
		return nil, err
	}
	var emails map[int64][]store.Email
	if issuer {
		if emails, err = s.store.EmailsOfDocuments(ctx, ids); err != nil {
			return nil, err
		}
	}
	processStates := map[int64][]store.ProcessState{} // by recipient, read for those that set one
	out := make([]documentView, len(docs))
	for i, d := range docs {
		r := documentRecords{files: files[d.ID], links: s.publicFileURL(d, viewer)}
		for _, rj := range rejections[d.ID] { // a recipient sees its own only (see historyFor)
			if viewer == d.IssuerID || rj.RecipientID == viewer {
				r.rejections = append(r.rejections, rj)
			}
		}
		if viewer == d.IssuerID {
			r.emails = emails[d.ID]
		}
		if d.ProcessState != "" {
			states, ok := processStates[d.RecipientID]
			if !ok {
				if states, err = s.store.ProcessStates(ctx, d.RecipientID); err != nil {
					return nil, err
				}
				processStates[d.RecipientID] = states
			}
			for _, ps := range states {
				if ps.Code == d.ProcessState {
					r.processState = &ps
				}
			}
		}
		if out[i], err = viewDocument(d, r, viewer, urls(d), lang); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodedModels keeps the models of the documents viewed lately, by the hash of their stored data: lists
// show the same documents again and again, and decoding a model costs more than the rest of its view.
// A document's data changes only with an edit, which then is another key. The models are shared: they
// are only read.
var decodedModels modelCache

// modelCacheSize is how many models each of the cache's two generations holds.
const modelCacheSize = 1024

// modelCache is a cache in two generations: when the newer one is full it becomes the older one, and a
// model found in the older one moves to the newer.
type modelCache struct {
	mu           sync.Mutex
	newer, older map[[sha256.Size]byte]*ubl.Document
}

// model decodes stored data, or finds it decoded.
func (c *modelCache) model(data []byte) (*ubl.Document, error) {
	key := sha256.Sum256(data)
	c.mu.Lock()
	m, ok := c.newer[key]
	if !ok {
		if m, ok = c.older[key]; ok {
			c.keep(key, m)
		}
	}
	c.mu.Unlock()
	if ok {
		return m, nil
	}
	m, _, err := decodeDocumentData(data)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.keep(key, m)
	c.mu.Unlock()
	return m, nil
}

func (c *modelCache) keep(key [sha256.Size]byte, m *ubl.Document) {
	if len(c.newer) >= modelCacheSize {
		c.older, c.newer = c.newer, nil
	}
	if c.newer == nil {
		c.newer = make(map[[sha256.Size]byte]*ubl.Document, modelCacheSize)
	}
	c.newer[key] = m
}

// orNull is a text that is null when empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// viewDocument builds the whole view as the viewer (issuer or recipient) sees it.
func viewDocument(d store.Document, r documentRecords, viewer int64, url fileURL, lang string) (documentView, error) {
	stored, err := decodedModels.model(d.Data)
	if err != nil {
		return documentView{}, err
	}
	m := *stored
	sum := summarize(d, viewer, lang)
	v := documentView{
		ID: sum.ID, Number: sum.Number, EmissionDate: sum.EmissionDate, TypeFact: sum.TypeFact, TypeDocument: sum.TypeDocument,
		State: sum.State, ToSendStatus: sum.ToSendStatus,
		ATCUD:        orNull(m.ATCUD()),
		EDIState:     viewEDIState(d.EDIState, lang),
		DueDate:      orNull(m.DueDate),
		TaxPointDate: orNull(m.TaxPointDate),
		CreatedAt:    d.CreatedAt, UpdatedAt: d.UpdatedAt,
		Currency:                  currencyView{m.Currency, cmp.Or(currencySymbols[m.Currency], m.Currency)},
		DecimalPlace:              "2",
		ExchangeCurrency:          orNull(m.TaxCurrency),
		CommitmentNumber:          orNull(m.AccountingCost),
		BuyerReference:            orNull(m.BuyerReference),
		ProjectReference:          orNull(m.References.Project),
		DespatchDocumentReference: orNull(m.References.Despatch),
		ReceiptDocumentReference:  orNull(m.References.Receipt),
		Supplier:                  viewParty(m.Seller),
		Customer:                  viewParty(m.Buyer),
		Amounts:                   viewAmounts(&m),
		Taxes:                     []taxView{},
		Lines:                     []lineView{},
		AllowanceCharge:           []allowanceView{},
		WithholdingTax:            []withholdingView{},
		References:                viewReferences(&m),
		Informations:              []informationView{},
		AdditionalInformations:    []additionalView{},
		Notes:                     nonNilStrings(m.Notes),
		Attachments:               []attachmentView{},
		Reasons:                   []reasonView{},
		DocumentRelated:           []relatedView{},
		Emails:                    []emailView{},
		SendByEmail:               d.SendByEmail,
		XMLURL:                    url("xml"),
		PDFURL:                    url("pdf"),
	}
	if m.AccountingCost != "" {
		v.Informations = append(v.Informations, informationView{Description: i18n.T(lang, "api.information.commitment"), Type: "commitment", Number: m.AccountingCost})
	}
	if m.Period != nil {
		v.InvoicePeriod = &periodView{m.Period.Start, m.Period.End}
	}
	if d.ProcessState != "" {
		v.ProcessState = &processStateView{ID: d.ProcessState, Code: d.ProcessState, Name: d.ProcessState, CreatedAt: d.ProcessStateAt}
		if ps := r.processState; ps != nil {
			v.ProcessState.ID, v.ProcessState.Name = strconv.FormatInt(ps.ID, 10), ps.Name
		}
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
		v.Lines = append(v.Lines, viewLine(l, m.Currency, lang))
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
	if len(m.PaymentMeans) > 0 {
		pm := viewPayment(m.PaymentMeans[0])
		v.PaymentMeans = &pm
	}
	for _, f := range r.files {
		f.Name = cleanFileName(f.Name, f.MIME)
		av := attachmentView{Type: fileType(f), File: r.links(f.PublicID), Identifier: f.Name,
			UBLType: strings.ToLower(ublTypeOf(f, &m)), MIMEType: f.MIME, Size: f.Size, Hash: hex.EncodeToString(f.SHA256)}
		v.Attachments = append(v.Attachments, av)
	}
	for _, e := range r.emails {
		v.Emails = append(v.Emails, viewEmail(e))
	}
	for _, rj := range r.rejections {
		var data struct {
			Reason string `json:"reason"`
		}
		json.Unmarshal(rj.Data, &data)
		v.Reasons = append(v.Reasons, reasonView{Reason: data.Reason, CreatedAt: rj.CreatedAt})
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
	return ediStateView{ID: alias, Alias: alias, AliasESPAP: ediStates[alias], Description: i18n.T(lang, "api.edi."+alias)}
}

func viewParty(p ubl.Party) partyView {
	country, nif := splitTaxID(p.TaxID(), p.Address.Country)
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
	return taxView{TaxableAmount: taxable.StringFixed(2), TaxAmount: tax.StringFixed(2), ID: c.ID, Name: c.ID, Percent: money(c.Percent),
		Code: cmp.Or(c.Scheme, "VAT"), TaxExemptionReasonCode: c.ExemptionReasonCode, TaxExemptionReason: c.ExemptionReason}
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

func viewLine(l ubl.Line, currency, lang string) lineView {
	net := decimal.Zero
	if l.NetAmount != nil {
		net = *l.NetAmount
	}
	tax := decimal.Zero
	if l.Item.VAT.Percent != nil {
		tax = net.Mul(*l.Item.VAT.Percent).Div(decimal.NewFromInt(100)).Round(2)
	}
	v := lineView{
		ID: l.ID, Name: l.Item.Name, Description: l.Item.Description, Note: l.Note, Notes: []string{}, Quantity: l.Quantity.StringFixed(3),
		Unit: l.Unit, Currency: currency, Amount: decimalText(net), TaxAmount: tax.StringFixed(2), SellerNumber: l.Item.SellerID,
		BuyerNumber: l.Item.BuyerID, OriginCountry: l.Item.OriginCountry, TaxesInfo: []taxView{viewTax(net, tax, l.Item.VAT)},
		AllowanceCharge: []allowanceView{}, AdditionalProperty: []propertyView{}, Informations: []informationView{},
		References: []lineRefView{}, OrderLineReference: l.OrderLineRef,
	}
	if l.Note != "" {
		v.Notes = append(v.Notes, l.Note)
	}
	if l.OrderLineRef != "" {
		v.References = append(v.References, lineRefView{DocumentType: "order", Line: l.OrderLineRef})
	}
	if l.Price.Net != nil {
		v.PriceAmount = decimalText(*l.Price.Net)
	}
	if l.Price.BaseQuantity != nil {
		v.BaseQuantity = orNull(l.Price.BaseQuantity.StringFixed(3))
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
	if c := v.Commitment; c != nil {
		v.Informations = append(v.Informations, informationView{Description: i18n.T(lang, "api.information.commitment"), Type: "commitment", Number: c.Number, Line: c.Line})
	}
	if l.Period != nil {
		v.InvoicePeriod = &periodView{l.Period.Start, l.Period.End}
	}
	return v
}

func decimalText(d decimal.Decimal) string {
	s := d.String()
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 2 {
		return s
	}
	return d.StringFixed(2)
}

func viewPayment(pm ubl.PaymentMeans) paymentView {
	v := paymentView{Code: pm.Code, Name: pm.Name, PaymentID: pm.PaymentID}
	// CIUS-PT writes a Multibanco payment's entity, reference and amount as #NAME@ATMPAYMENT#value#.
	for _, f := range []struct {
		field *string
		dst   *string
		name  string
	}{{&v.Code, &v.ATMPaymentEntity, "ENTITY"}, {&v.PaymentID, &v.ATMPaymentReference, "REFERENCE"}, {&v.Name, &v.ATMPaymentValue, "DESCRIPTION"}} {
		if inner, ok := strings.CutPrefix(*f.field, "#"+f.name+"@ATMPAYMENT#"); ok {
			*f.dst = strings.TrimSuffix(inner, "#")
		}
	}
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
