package server

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"einvoice/signing"
	"einvoice/store"
	"einvoice/ubl"
	"einvoice/ubl/taxid"
)

// Issuing: both creation methods end in one pipeline. The document is validated (structure and rules),
// the acting entity must be its issuer, the recipient's own rules apply when the recipient is an entity
// of this installation, and then, in one transaction, the natural key decides between creating and
// editing, the document is routed, and its history, states-report event and outbox rows are written.

// Document kinds as stored.
const (
	kindInvoice    = "invoice"
	kindCreditNote = "credit_note"
	kindOrder      = "order"
)

// Why a document was not delivered (to_send_status.code).
const (
	toSendConnection   = "sent_connection"
	toSendNoConnection = "no_connection"
	toSendUnregistered = "registered_entity"
	toSendNoBalance    = "received_pay_transactions"
)

// Recipient rules the support team can set on an entity: fields it requires on what it receives.
const (
	ruleCommitmentNumber = "commitment_number"
	rulePDFAttached      = "pdf_attached"
	ruleOrderReference   = "order_reference"
)

// RecipientRuleNames lists the recipient rules an entity can have.
var RecipientRuleNames = []string{ruleCommitmentNumber, rulePDFAttached, ruleOrderReference}

// issueRequest is a creation request of either method, decoded.
type issueRequest struct {
	issuer store.Entity
	method string // ubl or data
	xml    []byte
	seal   *signing.Seal // the issuer's, when the service signs for it
	sent   int64         // bytes of attachments the integrator sent (data method; the XML's are counted here)
	flags  IssueOptions
	lang   string
}

// Issued is the outcome of a creation: the document as stored, and whether it edited one.
type Issued struct {
	Document store.Document
	Edited   bool // an existing document (same issuer, number, type and date) was replaced
}

// IssueXML issues, or edits, a document from its UBL XML for the issuer: the method of POST
// /apps/documentsUBL and of the portal's upload. Its errors are the API's.
func (w *Workflow) IssueXML(ctx context.Context, issuer store.Entity, xml []byte, opts IssueOptions, lang string) (Issued, error) {
	seal, err := w.sealToSign(ctx, issuer, opts)
	if err != nil {
		return Issued{}, err
	}
	return w.issue(ctx, issueRequest{issuer: issuer, method: "ubl", xml: xml, seal: seal, flags: opts, lang: lang})
}

// IssueData issues, or edits, a CIUS-PT invoice or credit note from structured data and the files sent
// with it (POST /apps/documents): the XML is written from the data, then the same pipeline runs.
func (w *Workflow) IssueData(ctx context.Context, issuer store.Entity, in *documentData, uploads []upload, opts IssueOptions, lang string) (Issued, error) {
	if err := w.supplierDefaults(ctx, issuer.ID, in); err != nil {
		return Issued{}, err
	}
	model, err := buildDocument(in, issuer)
	if err != nil {
		return Issued{}, err
	}
	seal, err := w.sealToSign(ctx, issuer, opts)
	if err != nil {
		return Issued{}, err
	}
	var sent int64
	for _, u := range uploads {
		sent += int64(len(u.content))
	}
	if uploads, err = w.prepareUploads(issuer, seal, opts, model, uploads, lang); err != nil {
		return Issued{}, err
	}
	embedUploads(model, uploads)
	xml, err := ubl.Generate(model)
	if err != nil {
		return Issued{}, err
	}
	return w.issue(ctx, issueRequest{issuer: issuer, method: "data", xml: xml, seal: seal, sent: sent, flags: opts, lang: lang})
}

// sealToSign is the issuer's seal when the service signs something of this creation; nil when the
// request disables both signatures (the seal is then neither read nor checked).
func (w *Workflow) sealToSign(ctx context.Context, issuer store.Entity, opts IssueOptions) (*signing.Seal, error) {
	if opts.DisableXMLSign && opts.DisablePDFSign {
		return nil, nil
	}
	return w.sealFor(ctx, issuer)
}

// issue runs the pipeline. Its errors are the API's: FieldErrors for everything the caller can fix.
func (w *Workflow) issue(ctx context.Context, req issueRequest) (Issued, error) {
	result, model, err := ubl.Check(ctx, req.xml, ubl.Auto, req.lang)
	if err != nil {
		return Issued{}, err
	}
	if result.Rejected() || model == nil {
		return Issued{}, invalidDocument(result, req.lang)
	}
	party, partyField := model.Seller, "supplier"
	counterparty := model.Buyer
	if model.Kind == ubl.KindOrder {
		party, partyField, counterparty = model.Buyer, "customer", model.Seller
	}
	if !taxIDMatches(party, req.issuer) {
		return Issued{}, fieldError(partyField, CodeNotParty)
	}
	emails, err := recipientEmails(req, model)
	if err != nil {
		return Issued{}, err
	}
	if req.method == "ubl" && req.issuer.SignsItself {
		if err := checkIncomingXML(req.xml, model); err != nil {
			return Issued{}, err
		}
	}
	embedded := embeddedFiles(model)
	if req.seal != nil && req.method == "ubl" && !req.flags.DisablePDFSign {
		// Data-method PDFs were signed before they were embedded.
		if err := w.signEmbeddedPDFs(req.issuer.ID, req.seal, embedded); err != nil {
			return Issued{}, err
		}
	}
	if req.seal != nil && !req.flags.DisableXMLSign {
		if req.xml, err = signing.SignXML(req.xml, req.seal, w.now(), signing.XMLOptions{}); err != nil {
			return Issued{}, fmt.Errorf("signing the XML: %w", err)
		}
	}
	files := append([]store.File{{Role: store.FileXML, Name: safeFileName(model.Number) + ".xml", MIME: "application/xml", Content: req.xml}}, embedded...)
	data, err := encodeDocumentData(model, req.lang) // before the transaction: writes wait for it
	if err != nil {
		return Issued{}, err
	}

	var out Issued
	var mails, ediQueued bool
	webhooks := new(int64)
	err = w.store.Update(ctx, func(tx *store.Tx) error {
		if err := tx.ExpectDocumentByKey(req.issuer.ID, model.Number, strings.ToUpper(model.TypeCode), model.IssueDate); err != nil {
			return err // replacedDocument looks it up
		}
		recipient, err := recipientOf(tx, req.issuer.ID, counterparty)
		if err != nil {
			return err
		}
		via, err := ediRouteOf(tx, req.issuer, counterparty, &recipient)
		if err != nil {
			return err
		}
		if err := w.testModeAllows(req, recipient, via.deliverable()); err != nil {
			return err
		}
		if recipient != nil {
			if err := recipientRulesAllow(tx, recipient.ID, model, files); err != nil {
				return err
			}
		}
		doc, edited, err := replacedDocument(tx, req.issuer.ID, model)
		if err != nil {
			return err
		}
		out.Edited = edited
		before := doc
		fillDocument(&doc, req, model, emails, data)
		state, toSend, err := route(tx, req.issuer, recipient)
		if err != nil {
			return err
		}
		if via != nil { // it goes sent once the EDI partner acknowledges it
			state, toSend = store.StateToSend, via.toSend
		}
		doc.State, doc.ToSendStatus, doc.EDIState = state, toSend, ediPending
		if state == store.StateSent {
			doc.EDIState = ediDelivered
		}
		doc.RecipientID = 0
		if recipient != nil {
			doc.RecipientID = recipient.ID
		}
		if out.Edited {
			doc.Edits++
			doc.ImportedAt = "" // a new version waits in the recipient's inbox again
		}
		doc.HasPDF = hasRole(files, store.FilePDF)
		if err := tx.SaveDocument(&doc); err != nil {
			return err
		}
		if out.Edited && recipientChanged(before, doc) {
			if err := tx.CutOffRecipient(doc.ID, before.RecipientID); err != nil {
				return err
			}
			doc.ImportedAt, doc.ProcessState, doc.ProcessStateAt = "", "", ""
		}
		storeFiles := tx.AddFiles
		if out.Edited {
			storeFiles = tx.ReplaceFiles
		}
		if err := storeFiles(doc.ID, files); err != nil {
			return err
		}
		if err := chargeTransactions(tx, req, &doc, recipient, files); err != nil {
			return err
		}
		if ediQueued = via.deliverable(); ediQueued {
			if err := queueDocumentDelivery(tx, &doc, req.issuer, via); err != nil {
				return err
			}
		}
		out.Document = doc
		if err := recordChange(tx, &doc, before.State, out.Edited, recipient); err != nil {
			return err
		}
		webhooks = tx.QueuedWebhooks()
		if mails = doc.SendByEmail && len(doc.EmailAddresses) > 0; mails {
			return w.queueEmails(tx, &doc, req.lang)
		}
		return nil
	})
	if err == nil && *webhooks > 0 { // the jobs are woken only when there is work for them
		w.jobs.trigger(jobWebhooks)
	}
	if err == nil && mails {
		w.jobs.trigger(jobEmails)
	}
	if err == nil && ediQueued {
		w.jobs.trigger(jobEDI)
	}
	return out, err
}

// invalidDocument is the 400 e217 answer: the first fatal finding as the message, every finding in
// details.
func invalidDocument(r *ubl.Result, lang string) error {
	first, _ := r.FirstFatal()
	return FieldErrors{"document": {Code: CodeInvalidDocument, Text: map[string]string{lang: first.Message}, Details: r.Findings}}
}

// taxIDMatches tells whether one of a party's identifiers is the entity's tax ID, with or without the
// country prefix.
func taxIDMatches(p ubl.Party, e store.Entity) bool {
	for _, id := range p.TaxIDs() {
		country, nif := splitTaxID(id, e.Country)
		if nif != "" && country == e.Country && nif == e.NIF {
			return true
		}
	}
	return false
}

// splitTaxID splits "PT508025338" into PT and 508025338; without a prefix the country is def.
func splitTaxID(id, def string) (country, nif string) {
	country, nif = taxid.Split(strings.ReplaceAll(id, " ", ""))
	if country == "" {
		country = def
	}
	return country, nif
}

// testModeAllows applies the test environment's limits: only the test entities issue, to each other,
// by e-mail to a recipient that is not an entity here, or by EDI over an approved connection.
func (w *Workflow) testModeAllows(req issueRequest, recipient *store.Entity, viaEDI bool) error {
	if !w.cfg.TestMode() {
		return nil
	}
	if !req.issuer.TestEntity {
		return fieldError("supplier", CodeTestIssuer)
	}
	switch {
	case recipient != nil && recipient.TestEntity && recipient.ID != req.issuer.ID:
		return nil
	case recipient == nil && (req.flags.SendByEmail || viaEDI):
		return nil
	}
	return fieldError("customer", CodeTestRecipient)
}

// recipientRulesAllow checks the fields the recipient requires.
func recipientRulesAllow(tx *store.Tx, recipientID int64, d *ubl.Document, files []store.File) error {
	rules, err := tx.RecipientRules(recipientID)
	if err != nil {
		return err
	}
	errs := FieldErrors{}
	for _, r := range rules {
		switch r {
		case ruleCommitmentNumber:
			if d.AccountingCost == "" {
				errs["commitment_number"] = Problem{Code: CodeRecipientRule}
			}
		case rulePDFAttached:
			if !hasRole(files, store.FilePDF) {
				errs["file"] = Problem{Code: CodeRecipientPDF}
			}
		case ruleOrderReference:
			if d.References.Order == "" || d.References.Order == "NA" {
				errs["order_reference"] = Problem{Code: CodeRecipientOrder}
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func hasRole(files []store.File, role string) bool {
	for _, f := range files {
		if f.Role == role {
			return true
		}
	}
	return false
}

// connectionFinder finds the state of the connection between two entities (a store transaction).
type connectionFinder interface {
	ConnectionState(a, b int64) (string, error)
}

// route decides where a document goes: to the recipient's inbox when it is an entity here with an
// approved connection (and, when it pays for what it receives, a transaction to spend); otherwise it
// waits, with the reason. Only a connection that does not exist means no connection: any other error
// of the database fails the creation.
func route(conns connectionFinder, issuer store.Entity, recipient *store.Entity) (state, toSend string, err error) {
	if recipient == nil {
		return store.StateToSend, toSendUnregistered, nil
	}
	conn, err := conns.ConnectionState(issuer.ID, recipient.ID)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && conn == store.ConnDeclined:
		return store.StateToSend, toSendNoConnection, nil
	case err != nil:
		return "", "", err
	case conn != store.ConnApproved:
		return store.StateToSend, toSendConnection, nil
	case recipient.PaysReceived && recipient.Transactions < 1:
		return store.StateToSend, toSendNoBalance, nil
	}
	return store.StateSent, "", nil
}

// chargeTransactions spends what the document costs: one transaction of a paying recipient per
// delivered document, and one per started megabyte of the attachments sent (not the PDF the service
// renders) for an issuer whose documents the service signs (recorded even when the balance runs out:
// the document is already made).
func chargeTransactions(tx *store.Tx, req issueRequest, d *store.Document, recipient *store.Entity, files []store.File) error {
	if d.State == store.StateSent && recipient != nil && recipient.PaysReceived {
		if err := tx.Spend(recipient.ID, d.ID, 1, "received_document", false); err != nil {
			return err
		}
	}
	if req.seal == nil || req.flags.DisableXMLSign && req.flags.DisablePDFSign {
		return nil // the service signs nothing for this document
	}
	size := req.sent
	if req.method == "ubl" {
		for _, f := range files {
			if f.Role != store.FileXML {
				size += int64(len(f.Content))
			}
		}
	}
	if size == 0 {
		return nil
	}
	const mb = 1 << 20
	return tx.Spend(req.issuer.ID, d.ID, (size+mb-1)/mb, "attachments_signing", true)
}

// Webhook events.
const (
	eventReceived     = "document.received"
	eventStateChanged = "document.state_changed"
)

// WebhookEvents lists the events a webhook can take.
var WebhookEvents = []string{eventReceived, eventStateChanged}

// replacedDocument is the issuer's document that an upload of model replaces (same number, type and
// date; edited is true) or a new one; CodeAlreadyExists when that document may no longer be edited.
func replacedDocument(tx *store.Tx, issuerID int64, model *ubl.Document) (doc store.Document, edited bool, err error) {
	doc, err = tx.DocumentByKey(issuerID, model.Number, strings.ToUpper(model.TypeCode), model.IssueDate)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Document{}, false, nil
	case err != nil:
		return doc, false, err
	case !editable(doc):
		// The id lets a creation retried after its answer was lost find the document it made.
		return doc, false, FieldErrors{"number": {Code: CodeAlreadyExists, Details: map[string]string{"id": DocumentRef(doc)}}}
	}
	return doc, true, nil
}

// fillDocument copies the stored columns from the model, and its stored form.
func fillDocument(d *store.Document, req issueRequest, m *ubl.Document, emails []string, data []byte) {
	d.IssuerID = req.issuer.ID
	d.Kind = map[ubl.Kind]string{ubl.KindInvoice: kindInvoice, ubl.KindCreditNote: kindCreditNote, ubl.KindOrder: kindOrder}[m.Kind]
	d.TypeCode = strings.ToUpper(m.TypeCode)
	d.Number, d.EmissionDate, d.Currency = m.Number, m.IssueDate, m.Currency
	supplier, customer := m.Seller, m.Buyer
	d.Supplier = partyKey(supplier)
	d.Customer = partyKey(customer)
	d.PayableAmount = m.Totals.Payable.StringFixed(2)
	d.Method = req.method
	d.SendByEmail, d.EmailAddresses = req.flags.SendByEmail, emails
	d.DisableXMLSign, d.DisablePDFSign = req.flags.DisableXMLSign, req.flags.DisablePDFSign
	d.Data = data
}

func partyKey(p ubl.Party) store.PartyKey {
	country, nif := splitTaxID(p.TaxID(), p.Address.Country)
	return store.PartyKey{Country: country, NIF: nif, Name: cmp.Or(p.LegalName, p.Name)}
}

// recipientEmails is where the document goes by e-mail: the additional addresses and the customer's
// (customer[email], or the XML's customer contact), each once.
func recipientEmails(req issueRequest, m *ubl.Document) ([]string, error) {
	if !req.flags.SendByEmail {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(e string) {
		if k := strings.ToLower(e); e != "" && !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	if customer := m.Buyer.Contact.Email; customer != "" {
		if !reEmail.MatchString(customer) {
			field := "customer[email]"
			if req.method == "ubl" {
				field = "document" // the XML's AccountingCustomerParty/Party/Contact/ElectronicMail
			}
			return nil, fieldError(field, CodeInvalidValue)
		}
		add(customer)
	}
	for _, e := range req.flags.Emails {
		add(e)
	}
	if len(out) == 0 {
		return nil, fieldError("additional_emails", CodeRequired)
	}
	return out, nil
}

// embeddedFiles are the files a document embeds, decoded: its visual PDF (the first PDF described as
// the document's representation) and its other attachments.
func embeddedFiles(m *ubl.Document) []store.File {
	var files []store.File
	for _, a := range m.Attachments {
		if a.Content == "" {
			continue
		}
		content, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(a.Content), ""))
		if err != nil {
			continue
		}
		role := store.FileAttachment
		if strings.HasSuffix(strings.ToUpper(a.Description), "_REPRESENTATION") && a.MIMEType == "application/pdf" && !hasRole(files, store.FilePDF) {
			role = store.FilePDF
		}
		files = append(files, store.File{Role: role, Name: embeddedName(a), MIME: cmp.Or(a.MIMEType, "application/octet-stream"), Content: content})
	}
	return files
}

var reUnsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safeFileName(s string) string {
	s = strings.Trim(reUnsafeName.ReplaceAllString(s, "_"), "_.")
	if s == "" {
		return "document"
	}
	return s
}
