package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"einvoice/server/edi"
	"einvoice/store"
)

// deliverEDI claims due deliveries, a batch at a time, and makes one attempt at each.
func (s *Server) deliverEDI(ctx context.Context) error {
	cfg := s.cfg.EDI
	for ctx.Err() == nil {
		now := s.now()
		due, err := s.store.ClaimEDI(ctx, now.UTC().Format(store.TimeLayout), now.Add(cfg.Lease).UTC().Format(store.TimeLayout), cfg.Batch, len(cfg.RetrySchedule))
		if err != nil || len(due) == 0 {
			return err
		}
		sem := make(chan struct{}, max(cfg.Concurrency, 1))
		var wg sync.WaitGroup
		errs := make([]error, len(due))
		for i, d := range due {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				errs[i] = s.attemptEDI(ctx, d)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		if len(due) < cfg.Batch {
			return nil
		}
	}
	return ctx.Err()
}

// attemptEDI makes one attempt at a claimed delivery and records it, with what it means for the
// document, in one transaction.
func (s *Server) attemptEDI(ctx context.Context, d store.EDIDelivery) error {
	msg, superseded, err := s.ediMessage(ctx, d)
	if err != nil {
		return err
	}
	var receipt edi.Receipt
	var sendErr error
	switch c := s.connector(d.Connector); {
	case superseded:
		sendErr = edi.Permanent{Err: errors.New("a newer version of the document replaced it")}
	case c == nil:
		sendErr = fmt.Errorf("no %s connector is configured", d.Connector)
	default:
		actx, cancel := context.WithTimeout(ctx, s.cfg.EDI.Timeout)
		receipt, sendErr = c.Deliver(actx, msg)
		cancel()
	}
	// Written even when the job is being stopped: what the partner took stays taken.
	err = s.store.Update(context.WithoutCancel(ctx), func(tx *store.Tx) error {
		return s.recordEDIAttempt(tx, d, receipt, sendErr, superseded)
	})
	if err == nil {
		s.jobs.trigger(jobWebhooks)
	}
	return err
}

// ediMessage is what a delivery carries: a status message as queued, or the document's XML as
// stored. superseded says the document has a newer version than the one queued.
func (s *Server) ediMessage(ctx context.Context, d store.EDIDelivery) (edi.Delivery, bool, error) {
	msg := edi.Delivery{ID: d.ID, DocumentID: d.DocumentID, MessageID: d.MessageID, Kind: d.Kind, Partner: d.Partner,
		FromNIF: d.FromNIF, ToNIF: d.ToNIF, Payload: d.Payload}
	if d.Kind == edi.KindStatus {
		msg.Filename = "Response_" + d.MessageID + ".xml"
		return msg, false, nil
	}
	edits, _, err := s.store.DocumentVersion(ctx, d.DocumentID)
	if err != nil {
		return msg, false, err
	}
	if edits != d.Version {
		return msg, true, nil
	}
	xml, err := s.store.DocumentFileByRole(ctx, d.DocumentID, store.FileXML)
	if err != nil {
		return msg, false, err
	}
	msg.Filename, msg.Payload = xml.Name, xml.Content
	return msg, false, nil
}

// recordEDIAttempt writes one attempt: the delivery's new state, then (settleEDI) the history entry
// and, for a document, what the outcome means for it.
func (s *Server) recordEDIAttempt(tx *store.Tx, d store.EDIDelivery, r edi.Receipt, sendErr error, superseded bool) error {
	var permanent edi.Permanent
	o := store.EDIOutcome{RemoteID: r.RemoteID}
	result := "delivered"
	switch {
	case sendErr == nil && r.Pending:
		// Sent again (same message id: the partner answers a duplicate) if no acknowledgement comes by
		// the next attempt; after the last, it waits.
		o.State, o.NextAt, result = store.EDIAwaiting, s.nextEDIAttempt(d.Attempts), "awaiting_acknowledgement"
	case sendErr == nil:
		o.State = store.EDIDone
	case errors.As(sendErr, &permanent):
		o.State, o.Error, result = store.EDIFailed, sendErr.Error(), "refused"
	default:
		o.Error, result = sendErr.Error(), "error"
		if o.NextAt = s.nextEDIAttempt(d.Attempts); o.NextAt == "" {
			o.State, result = store.EDIFailed, "gave_up"
		} else {
			o.State = store.EDIQueued
		}
	}
	if err := tx.RecordEDIAttempt(d.ID, o); err != nil {
		return err
	}
	return settleEDI(tx, d, o.State, d.Attempts+1, result, o.Error, superseded)
}

// settleEDI follows a delivery's new state, once written, into its document: the history entry of the
// attempt (or acknowledgement) with its result and detail, and, for a document delivery, the move a
// delivery done or failed means (detail then says why it failed). A delivery of a superseded version
// does not move the document: its newer version is what counts.
func settleEDI(tx *store.Tx, d store.EDIDelivery, state string, attempt int, result, detail string, superseded bool) error {
	data, _ := json.Marshal(map[string]any{"partner": d.Partner, "connector": d.Connector, "message_id": d.MessageID,
		"message_kind": d.Kind, "attempt": attempt, "result": result, "error": detail})
	if err := tx.AddHistory(store.HistoryEntry{DocumentID: d.DocumentID, Kind: "edi", Description: "edi_delivery_" + result, Data: data}); err != nil {
		return err
	}
	if d.Kind != edi.KindDocument || superseded {
		return nil
	}
	switch state {
	case store.EDIDone:
		return moveByEDI(tx, d.DocumentID, evEDIDelivered, nil)
	case store.EDIFailed:
		return moveByEDI(tx, d.DocumentID, evEDIFailed, map[string]string{"reason": detail})
	}
	return nil
}

// moveByEDI takes a document through an EDI transition when it stands where the transition starts;
// a document that moved on meanwhile (a status message came first) stays where it is.
func moveByEDI(tx *store.Tx, documentID int64, on docEvent, data map[string]string) error {
	doc, err := tx.DocumentByID(documentID)
	if err != nil {
		return err
	}
	t, ok := permit(on, byEDI, doc)
	if !ok {
		return nil
	}
	if data == nil {
		data = map[string]string{}
	}
	return moveDocument(tx, &doc, t, data)
}

// nextEDIAttempt is when the attempt after n attempts goes; empty after the last.
func (w *Workflow) nextEDIAttempt(n int) string {
	schedule := w.cfg.EDI.RetrySchedule
	if n < 0 || n >= len(schedule) {
		return ""
	}
	return w.now().Add(schedule[n]).UTC().Format(store.TimeLayout)
}

// Acknowledge records the late answer to a delivery whose receipt was pending (an asynchronous MDN):
// a positive one completes it, a negative one sends it again on the retry schedule. The answer may come
// before the attempt it answers is recorded (the delivery is still queued): a positive one counts.
func (w *Workflow) Acknowledge(ctx context.Context, messageID string, ok bool, detail string) error {
	detail = truncate(detail, maxReasonLength)
	err := w.store.Update(ctx, func(tx *store.Tx) error {
		d, err := tx.EDIDeliveryByMessageID(messageID)
		if errors.Is(err, store.ErrNotFound) {
			return fieldError("message_id", CodeNotFound)
		} else if err != nil || d.State != store.EDIAwaiting && (d.State != store.EDIQueued || !ok) {
			return err // an acknowledgement repeated, or for a delivery already settled, changes nothing
		}
		if !ok {
			next := w.nextEDIAttempt(d.Attempts - 1) // the attempt it answers is counted already
			state := store.EDIQueued
			if next == "" {
				state = store.EDIFailed
			}
			if err := tx.RescheduleEDI(d.ID, state, next, detail); err != nil {
				return err
			}
			return settleEDI(tx, d, state, d.Attempts, "negative_acknowledgement", detail, false)
		}
		if err := tx.SetEDIState(d.ID, store.EDIDone, "", ""); err != nil {
			return err
		}
		return settleEDI(tx, d, store.EDIDone, d.Attempts, "acknowledged", detail, false)
	})
	if err == nil {
		w.jobs.trigger(jobWebhooks)
		w.jobs.trigger(jobEDI)
	}
	return err
}
