package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"einvoice/store"
)

// The document's life in one place: the values of state_document and state_edi_document, the
// transitions between them and who may cause each. Every operation that changes a document asks
// permit first and records the change through stateChanged, so the history entry, the issuer's
// states-report event and the webhooks' outbox rows are written the same way whatever the front end.

// EDI states (state_edi_document.alias). The eSPap status codes of an EDI status message map onto them
// (and onto state_document) through the table below.
const (
	ediPending        = "pending"        // not transmitted yet
	ediDelivered      = "delivered"      // in the recipient's inbox here, or received by the EDI peer
	ediAccepted       = "accepted"       // eSPap ACCEPTED (passed the peer's checks, forwarded to the recipient); also the recipient's acceptance here
	ediError          = "error"          // eSPap ERROR: refused by the peer's checks; the issuer corrects it and sends it again
	ediRegularization = "regularization" // eSPap 14, or a rejection here: the recipient asks for a corrected document
	ediReception      = "reception"      // a failure at the recipient's reception: the issuer sends it again
	ediReturned       = "returned"       // eSPap 22: returned; it must be cancelled and a new document issued
	ediInPayment      = "in_payment"     // eSPap 33
	ediPaid           = "paid"           // eSPap 29
)

// actor is who causes a change.
type actor string

const (
	byIssuer    actor = "issuer"
	byRecipient actor = "recipient"
	byEDI       actor = "edi" // a status message from the EDI network
	bySupport   actor = "support"
)

// docEvent is what happens to a document.
type docEvent string

const (
	evIssue        docEvent = "issue"         // a creation request: a new document, or a new version of one with the same natural key
	evImport       docEvent = "import"        // the recipient took it into its system
	evProcessState docEvent = "process_state" // the recipient set one of its process states
	evAccept       docEvent = "accept"
	evReject       docEvent = "reject" // with a reason
)

// The eSPap status codes an EDI status message carries (DocumentResponse/Response/ResponseCode).
const (
	espapAccepted       docEvent = "ACCEPTED" // passed the peer's checks and forwarded to the recipient
	espapError          docEvent = "ERROR"    // failed the peer's checks
	espapRegularization docEvent = "14"       // rejected by the recipient, awaiting regularisation
	espapReturned       docEvent = "22"       // returned by the recipient: cancel it and issue a new document
	espapProcessed      docEvent = "11"       // processed (accepted) by the recipient
	espapCreditAccepted docEvent = "30"       // a credit note accepted by the recipient
	espapInPayment      docEvent = "33"
	espapPaid           docEvent = "29"
)

// What becomes of a document's EDI delivery.
const (
	evEDIDelivered docEvent = "edi_delivered" // the partner acknowledged it
	evEDIFailed    docEvent = "edi_failed"    // the partner refused it for good, or every attempt failed
)

// espapCodes is every eSPap code a status message may carry.
var espapCodes = []docEvent{espapAccepted, espapError, espapRegularization, espapReturned, espapProcessed,
	espapCreditAccepted, espapInPayment, espapPaid}

// docStatus is where a document stands. In a transition's outcome an empty field keeps the value.
type docStatus struct{ state, edi string }

// transition is one row of the table: an event, who may cause it, where the document must stand for it
// (nil: anywhere; the state "" is a document that does not exist yet) and where it may go (none: it
// stays where it is). An issue has two outcomes; routing chooses one.
type transition struct {
	on      docEvent
	by      actor
	from    []string // state_document
	fromEDI []string // state_edi_document
	to      []docStatus
}

var (
	issuedTo       = []docStatus{{store.StateSent, ediDelivered}, {store.StateToSend, ediPending}}
	receivedStates = []string{store.StateSent, store.StateAccepted, store.StateRejected}
	ediInTransit   = []string{ediPending, ediDelivered}  // not yet past the peer's checks
	ediForwarded   = []string{ediDelivered, ediAccepted} // with the recipient, undecided
)

// lifecycle is every allowed transition.
var lifecycle = []transition{
	// The issuer creates a document, or sends a new version of one that was never delivered or whose
	// EDI state asks for it (the natural key names it; anything else is refused with e200).
	{on: evIssue, by: byIssuer, from: []string{"", store.StateToSend}, to: issuedTo},
	{on: evIssue, by: byIssuer, fromEDI: []string{ediRegularization, ediReception, ediError}, to: issuedTo},

	// The recipient here imports what was delivered (not what it rejected), sets its own process
	// states on anything it received, and decides once.
	{on: evImport, by: byRecipient, from: []string{store.StateSent, store.StateAccepted}},
	{on: evProcessState, by: byRecipient, from: receivedStates},
	{on: evAccept, by: byRecipient, from: []string{store.StateSent}, to: []docStatus{{store.StateAccepted, ediAccepted}}},
	{on: evReject, by: byRecipient, from: []string{store.StateSent}, to: []docStatus{{store.StateRejected, ediRegularization}}},
	// The support team records a rejection a recipient made outside the API.
	{on: evReject, by: bySupport, from: []string{store.StateSent}, to: []docStatus{{store.StateRejected, ediRegularization}}},

	// A document queued for an EDI partner goes sent when the partner acknowledges it; refused for good,
	// it waits for the issuer to correct it and send it again.
	{on: evEDIDelivered, by: byEDI, from: []string{store.StateToSend}, fromEDI: []string{ediPending}, to: []docStatus{{store.StateSent, ediDelivered}}},
	{on: evEDIFailed, by: byEDI, from: []string{store.StateToSend}, fromEDI: []string{ediPending}, to: []docStatus{{store.StateToSend, ediError}}},

	// Status messages from the EDI network, by eSPap code.
	{on: espapAccepted, by: byEDI, from: []string{store.StateToSend, store.StateSent}, fromEDI: ediInTransit, to: []docStatus{{store.StateSent, ediAccepted}}},
	{on: espapError, by: byEDI, from: []string{store.StateToSend, store.StateSent}, fromEDI: ediInTransit, to: []docStatus{{store.StateToSend, ediError}}},
	{on: espapRegularization, by: byEDI, from: []string{store.StateSent}, fromEDI: ediForwarded, to: []docStatus{{store.StateRejected, ediRegularization}}},
	{on: espapReturned, by: byEDI, from: []string{store.StateSent}, fromEDI: ediForwarded, to: []docStatus{{store.StateRejected, ediReturned}}},
	{on: espapProcessed, by: byEDI, from: []string{store.StateSent}, fromEDI: ediForwarded, to: []docStatus{{store.StateAccepted, ediAccepted}}},
	{on: espapCreditAccepted, by: byEDI, from: []string{store.StateSent}, fromEDI: ediForwarded, to: []docStatus{{store.StateAccepted, ediAccepted}}},
	{on: espapInPayment, by: byEDI, from: []string{store.StateSent, store.StateAccepted}, fromEDI: ediForwarded, to: []docStatus{{store.StateAccepted, ediInPayment}}},
	{on: espapPaid, by: byEDI, from: []string{store.StateSent, store.StateAccepted}, fromEDI: []string{ediDelivered, ediAccepted, ediInPayment}, to: []docStatus{{store.StateAccepted, ediPaid}}},
}

// permit finds the transition that lets by cause on for a document standing where d stands.
func permit(on docEvent, by actor, d store.Document) (transition, bool) {
	for _, t := range lifecycle {
		if t.on == on && t.by == by && (t.from == nil || slices.Contains(t.from, d.State)) &&
			(t.fromEDI == nil || slices.Contains(t.fromEDI, d.EDIState)) {
			return t, true
		}
	}
	return transition{}, false
}

// editable tells whether the issuer may send a new version of an existing document.
func editable(d store.Document) bool {
	_, ok := permit(evIssue, byIssuer, d)
	return ok
}

// move takes d through a transition with one outcome, saves it and records the change.
func moveDocument(tx *store.Tx, d *store.Document, t transition, data map[string]string) error {
	if len(t.to) != 1 {
		return errors.New("move: the transition " + string(t.on) + " has no single outcome")
	}
	previous := d.State
	d.State, d.EDIState = cmp.Or(t.to[0].state, d.State), cmp.Or(t.to[0].edi, d.EDIState)
	if err := tx.SaveDocument(d); err != nil {
		return err
	}
	return stateChanged(tx, d, previous, data)
}

// recordChange writes what a creation or an edit means for others: history, the issuer's
// states-report event and webhooks, the recipient's received webhook.
func recordChange(tx *store.Tx, d *store.Document, previous string, edited bool, recipient *store.Entity) error {
	if edited {
		if err := tx.AddHistory(store.HistoryEntry{DocumentID: d.ID, Kind: "edit", Description: "edited"}); err != nil {
			return err
		}
	}
	if d.State != previous {
		if err := stateChanged(tx, d, previous, map[string]string{"to_send_status": d.ToSendStatus}); err != nil {
			return err
		}
	}
	if d.State == store.StateSent && previous != store.StateSent && recipient != nil {
		if err := tx.EnqueueWebhooks(recipient.ID, d.ID, eventReceived, nil); err != nil {
			return err
		}
		if err := tx.EnqueueNotice(recipient.ID, d.ID, store.NoticeReceived, ""); err != nil {
			return err
		}
	}
	return nil
}

// stateChanged records a document's move to where it now stands: a history entry (with data, such as a
// rejection reason; of kind "edi" when only state_edi_document changed), the issuer's states-report
// event and its state_changed webhooks.
func stateChanged(tx *store.Tx, d *store.Document, previous string, data map[string]string) error {
	data["previous_state"] = previous
	raw, _ := json.Marshal(data)
	h := store.HistoryEntry{DocumentID: d.ID, Kind: "state", State: d.State, Description: d.State, Data: raw}
	if d.State == previous {
		h.Kind, h.State, h.Description = "edi", "", d.EDIState
	}
	if err := tx.AddHistory(h); err != nil {
		return err
	}
	if d.State == store.StateRejected && previous != store.StateRejected {
		if err := tx.EnqueueNotice(d.IssuerID, d.ID, store.NoticeRejected, data["reason"]); err != nil {
			return err
		}
	}
	if err := tx.AddStateEvent(store.StateEvent{EntityID: d.IssuerID, DocumentID: d.ID, State: d.State, PreviousState: previous, EDIState: d.EDIState}); err != nil {
		return err
	}
	return tx.EnqueueWebhooks(d.IssuerID, d.ID, eventStateChanged, map[string]any{"state": d.State, "previous_state": previous})
}

// EDIStatus applies a status message the EDI network sent about a document this installation issued:
// code is the eSPap code (ACCEPTED, ERROR, 14, 22, 11, 30, 33, 29) and description the message's text,
// kept as the reason of a rejection or an error.
func (w *Workflow) EDIStatus(ctx context.Context, documentID int64, code, description string) (store.Document, error) {
	var d store.Document
	err := w.store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if d, err = tx.DocumentByID(documentID); errors.Is(err, store.ErrNotFound) {
			return fail(CodeNotFound)
		} else if err != nil {
			return err
		}
		return applyEDIStatus(tx, &d, code, description)
	})
	if err == nil {
		w.jobs.trigger(jobWebhooks)
	}
	return d, err
}

// applyEDIStatus moves a document as an eSPap status code says, in a transaction.
func applyEDIStatus(tx *store.Tx, d *store.Document, code, description string) error {
	if len([]rune(description)) > maxReasonLength {
		return fieldError("description", CodeInvalidValue)
	}
	if !slices.Contains(espapCodes, docEvent(code)) {
		return fieldError("code", CodeInvalidValue)
	}
	t, ok := permit(docEvent(code), byEDI, *d)
	if !ok {
		return fieldError("code", CodeInvalidValue)
	}
	data := map[string]string{"edi_status": code}
	if description != "" {
		data["reason"] = description
	}
	return moveDocument(tx, d, t, data)
}

// maxEvents bounds the events one request marks read.
const maxEvents = 1000

// MarkEventsRead marks states-report events of the issuer read. Ids that are not its unread events
// refuse the whole request, naming none of them.
func (w *Workflow) MarkEventsRead(ctx context.Context, issuerID int64, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, fieldError("events", CodeRequired)
	}
	if len(ids) > maxEvents {
		return 0, fieldError("events", CodeInvalidValue)
	}
	nums := make([]int64, len(ids))
	for i, v := range ids {
		n, err := w.store.ParsePublicID(store.KindEvent, v)
		if err != nil {
			return 0, fieldError("events", CodeUnknownEvents)
		}
		nums[i] = n
	}
	unknown, err := w.store.MarkEventsRead(ctx, issuerID, nums)
	if err != nil {
		return 0, err
	}
	if len(unknown) > 0 {
		return 0, fieldError("events", CodeUnknownEvents)
	}
	return len(nums), nil
}
