package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"einvoice/server/edi"
	"einvoice/store"
	"einvoice/ubl"
	"einvoice/ubl/status"
)

// What EDI partners send: documents for the entities here, and status messages about the documents
// sent from here. Both go through the workflow like the API's requests, in one transaction with the
// record of the message, so that a message a partner repeats is dropped and a failed one can come again.

// maxMessageID bounds a partner's message id.
const maxMessageID = 998

var _ edi.Inbox = (*Workflow)(nil)

// Receive takes a message a partner sent: a document for an entity here, or a status message about a
// document sent from here. A repeated message id from the same partner is accepted and ignored. The
// errors are the API's (field errors with codes), for the connector to answer the partner with.
func (w *Workflow) Receive(ctx context.Context, partner, messageID string, payload []byte) error {
	errs := FieldErrors{}
	requiredText(errs, "partner", &partner, maxNameLength)
	requiredText(errs, "message_id", &messageID, maxMessageID)
	switch {
	case len(payload) == 0:
		errs["payload"] = Problem{Code: CodeRequired}
	case w.cfg.HTTP.BodyLimit > 0 && int64(len(payload)) > w.cfg.HTTP.BodyLimit:
		errs["payload"] = Problem{Code: CodeBodyTooLarge}
	}
	if err := errs.orNil(); err != nil {
		return err
	}
	var err error
	if status.IsStatus(payload) {
		err = w.receiveStatus(ctx, partner, messageID, payload)
	} else {
		err = w.receiveDocument(ctx, partner, messageID, payload)
	}
	if err == nil {
		w.jobs.trigger(jobWebhooks)
		w.jobs.trigger(jobEDI)
	}
	return err
}

// receiveStatus applies a status message to the document it names: one of this installation's,
// delivered through that partner, matched by number (and the sender's tax ID, type, date and AIM
// identifier when the message gives them). A status that does not apply where the document stands is
// recorded in its history and otherwise ignored: sending it again would change nothing.
func (w *Workflow) receiveStatus(ctx context.Context, partner, messageID string, payload []byte) error {
	m, err := status.Parse(payload)
	if err != nil {
		return FieldErrors{"payload": {Code: CodeInvalidStatus, Text: map[string]string{"pt": err.Error(), "en": err.Error()}}}
	}
	return w.store.Update(ctx, func(tx *store.Tx) error {
		fresh, err := tx.ReceiveEDI(partner, messageID, edi.KindStatus)
		if err != nil || !fresh {
			return err
		}
		d, err := statusDocument(tx, partner, m)
		if err != nil {
			return err
		}
		if err := tx.SetEDIReceivedDocument(partner, messageID, d.ID, ""); err != nil {
			return err
		}
		err = applyEDIStatus(tx, &d, m.Code, m.Description)
		var fe FieldErrors
		if errors.As(err, &fe) && fe["code"].Code == CodeInvalidValue {
			data, _ := json.Marshal(map[string]string{"partner": partner, "message_id": messageID, "edi_status": m.Code, "reason": m.Description})
			return tx.AddHistory(store.HistoryEntry{DocumentID: d.ID, Kind: "edi", Description: "edi_status_ignored", Data: data})
		}
		return err
	})
}

// statusDocument finds the document a status message is about.
func statusDocument(tx *store.Tx, partner string, m status.Message) (store.Document, error) {
	from := ""
	if m.Receiver.TaxID != "" {
		country, nif := splitTaxID(m.Receiver.TaxID, cmp.Or(m.Receiver.Country, "PT"))
		from = country + nif
	}
	docs, err := tx.EDIDocumentsByNumber(partner, from, m.Number)
	if err != nil {
		return store.Document{}, err
	}
	for _, d := range docs {
		if m.TypeCode != "" && !strings.EqualFold(m.TypeCode, d.TypeCode) || m.IssueDate != "" && m.IssueDate != d.EmissionDate {
			continue
		}
		if m.UUID != "" {
			raw, err := tx.DocumentData(d.ID)
			if err != nil {
				return d, err
			}
			model, _, err := decodeDocumentData(raw)
			if err != nil {
				return d, err
			}
			if aim := aimOf(model); aim != "" && aim != m.UUID {
				continue
			}
		}
		return d, nil
	}
	return store.Document{}, fieldError("document", CodeUnknownDocument)
}

// receiveDocument stores a document a partner sent for an entity here: it must pass the same checks
// as an issued one (the recipient's rules too), and an approved connection must join its recipient
// with its issuer through that partner. The issuer is represented here by an entity of its own (made on first receipt); a new
// version of a document the recipient asked to be corrected replaces it. An ACCEPTED status message
// goes back to the partner.
func (w *Workflow) receiveDocument(ctx context.Context, partner, messageID string, payload []byte) error {
	result, model, err := ubl.Check(ctx, payload, ubl.Auto, "pt")
	if err != nil {
		return err
	}
	if result.Rejected() || model == nil {
		return invalidDocument(result, "pt")
	}
	data, err := encodeDocumentData(model, "pt")
	if err != nil {
		return err
	}
	party, partyField, counterparty, counterpartyField := model.Seller, "supplier", model.Buyer, "customer"
	if model.Kind == ubl.KindOrder {
		party, partyField, counterparty, counterpartyField = model.Buyer, "customer", model.Seller, "supplier"
	}
	sender, to := partyKey(party), partyKey(counterparty)
	if sender.NIF == "" {
		return fieldError(partyField, CodeRequired)
	}
	files := append([]store.File{{Role: store.FileXML, Name: safeFileName(model.Number) + ".xml", MIME: "application/xml", Content: payload}}, embeddedFiles(model)...)
	return w.store.Update(ctx, func(tx *store.Tx) error {
		fresh, err := tx.ReceiveEDI(partner, messageID, edi.KindDocument)
		if err != nil || !fresh {
			return err
		}
		recipient, err := tx.EntityByNIF(cmp.Or(to.Country, "PT"), to.NIF)
		if errors.Is(err, store.ErrNotFound) {
			return fieldError(counterpartyField, CodeNoEDIConnection)
		} else if err != nil {
			return err
		}
		conn, err := tx.ExternalConnection(recipient.ID, cmp.Or(sender.Country, "PT"), sender.NIF)
		if errors.Is(err, store.ErrNotFound) {
			return fieldError(partyField, CodeNoEDIConnection)
		} else if err != nil {
			return err
		}
		kind, name := connectorOf(conn)
		if conn.State != store.ConnApproved || name != partner {
			return fieldError(partyField, CodeNoEDIConnection)
		}
		if w.cfg.TestMode() && !recipient.TestEntity {
			return fieldError(counterpartyField, CodeTestRecipient)
		}
		if err := recipientRulesAllow(tx, recipient.ID, model, files); err != nil {
			return err
		}
		issuer, err := tx.ExternalIssuer(cmp.Or(sender.Country, "PT"), sender.NIF, sender.Name, partner, recipient.TestEntity)
		if err != nil {
			return err
		}
		doc, edited, err := replacedDocument(tx, issuer.ID, model)
		if err != nil {
			return err
		}
		before := doc
		fillDocument(&doc, issueRequest{issuer: issuer, method: "ubl", xml: payload, lang: "pt"}, model, nil, data)
		doc.State, doc.EDIState, doc.ToSendStatus, doc.RecipientID = store.StateSent, ediDelivered, "", recipient.ID
		if edited {
			doc.Edits++
			doc.ImportedAt = ""
		}
		doc.HasPDF = hasRole(files, store.FilePDF)
		if err := tx.SaveDocument(&doc); err != nil {
			return err
		}
		if err := tx.ReplaceFiles(doc.ID, files); err != nil {
			return err
		}
		if err := recordChange(tx, &doc, before.State, edited, &recipient); err != nil {
			return err
		}
		if err := tx.SetEDIReceivedDocument(partner, messageID, doc.ID, kind); err != nil {
			return err
		}
		return w.queueStatusOf(tx, &doc, recipient, issuer, aimOf(model),
			store.EDIOrigin{Partner: partner, Connector: kind, MessageID: messageID}, status.Accepted, "")
	})
}

// statusBack queues, when a document here came by EDI, the status message that tells its sender what
// became of it.
func (w *Workflow) statusBack(tx *store.Tx, d *store.Document, code, description string) (bool, error) {
	origin, err := tx.EDIOriginOf(d.ID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, w.queueStatus(tx, d, origin, code, description)
}

// queueStatus queues a status message about a received document to the partner it came from.
func (w *Workflow) queueStatus(tx *store.Tx, d *store.Document, via store.EDIOrigin, code, description string) error {
	recipient, err := tx.EntityByID(d.RecipientID)
	if err != nil {
		return err
	}
	issuer, err := tx.EntityByID(d.IssuerID)
	if err != nil {
		return err
	}
	raw, err := tx.DocumentData(d.ID)
	if err != nil {
		return err
	}
	model, _, err := decodeDocumentData(raw)
	if err != nil {
		return err
	}
	return w.queueStatusOf(tx, d, recipient, issuer, aimOf(model), via, code, description)
}

// queueStatusOf is queueStatus with the document's parties and AIM identifier at hand.
func (w *Workflow) queueStatusOf(tx *store.Tx, d *store.Document, recipient, issuer store.Entity, aim string,
	via store.EDIOrigin, code, description string) error {
	id := newMessageID()
	xml, err := status.Build(status.Message{
		ID: "Response_" + strings.TrimSuffix(id, "@einvoice"), IssuedAt: w.now(),
		Sender:   status.Party{Name: recipient.Name, Country: recipient.Country, TaxID: recipient.Country + recipient.NIF},
		Receiver: status.Party{Name: issuer.Name, Country: issuer.Country, TaxID: issuer.Country + issuer.NIF},
		Code:     code, Description: description,
		Number: d.Number, UUID: aim, IssueDate: d.EmissionDate, TypeCode: d.TypeCode,
	})
	if err != nil {
		return err
	}
	return tx.QueueEDI(store.EDIDelivery{DocumentID: d.ID, Version: d.Edits, Kind: edi.KindStatus, Connector: via.Connector,
		Partner: via.Partner, FromNIF: recipient.Country + recipient.NIF, ToNIF: issuer.Country + issuer.NIF, MessageID: id, Payload: xml})
}

// decisionCode is the status code that tells a document's sender the recipient's decision.
func decisionCode(d store.Document, accepted bool) string {
	switch {
	case !accepted:
		return status.Regularization
	case d.Kind == kindCreditNote:
		return status.CreditAccepted
	}
	return status.Processed
}
