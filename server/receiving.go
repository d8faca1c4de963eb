package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"strconv"
	"strings"

	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// The recipient's side: the inbox of received documents, import confirmation, acceptance or rejection,
// and process states.

// formBody reads a small JSON or form body into named text fields.
func formBody(c echo.Context, names ...string) (map[string]text, error) {
	out := map[string]text{}
	mt, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	switch mt {
	case mimeJSON:
		raw, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return nil, bodyError(err)
		}
		var m map[string]text
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fieldError("body", CodeInvalidValue)
		}
		for k, v := range m {
			out[k] = v
		}
	case "":
	default:
		form, err := c.FormParams()
		if err != nil {
			return nil, bodyError(err)
		}
		for k, v := range form {
			out[k] = text(strings.TrimSpace(first(v)))
		}
	}
	for k := range out {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		if !known {
			return nil, fieldError(k, CodeUnknownField)
		}
	}
	return out, nil
}

// importDocument is POST /apps/documents/{id}: the recipient confirms it imported the document.
func (s *Server) importDocument(c echo.Context) error {
	if _, err := formBody(c); err != nil {
		return err
	}
	me := actingEntity(c)
	d, err := s.ImportDocument(c.Request().Context(), me.ID, c.Param("id"))
	if err != nil {
		return err
	}
	return respond(c, CodeDocumentImported, map[string]any{"data": summarize(d, me.ID, langOf(c))})
}

// acceptDocument is POST /apps/documents/{id}/accepted with accepted (1/0, true/false) and reason,
// required when not accepted.
func (s *Server) acceptDocument(c echo.Context) error {
	body, err := formBody(c, "accepted", "reason")
	if err != nil {
		return err
	}
	accepted, ok := body["accepted"].flag()
	switch {
	case body["accepted"] == "":
		return fieldError("accepted", CodeRequired)
	case !ok:
		return fieldError("accepted", CodeInvalidValue)
	}
	me := actingEntity(c)
	d, err := s.DecideDocument(c.Request().Context(), me.ID, c.Param("id"), accepted, string(body["reason"]))
	if err != nil {
		return err
	}
	return respond(c, CodeStateCommunicated, map[string]any{"data": summarize(d, me.ID, langOf(c))})
}

// processStateItem is one process state as GET /apps/processstates lists it.
type processStateItem struct {
	ID          string `json:"id"`
	Code        string `json:"identification_code"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// listProcessStates is GET /apps/processstates: the acting entity's process states, when its feature
// is on.
func (s *Server) listProcessStates(c echo.Context) error {
	me := actingEntity(c)
	if !me.ProcessStatesEnabled {
		return fieldError("process_states", CodeProcessStatesOff)
	}
	states, err := s.store.ProcessStates(c.Request().Context(), me.ID)
	if err != nil {
		return err
	}
	out := make([]processStateItem, len(states))
	for i, p := range states {
		out[i] = processStateItem{strconv.FormatInt(p.ID, 10), p.Code, p.Name, p.Description}
	}
	return respondData(c, true, out)
}

// setProcessState is PUT /apps/documents/{id}/processstates with identification_code.
func (s *Server) setProcessState(c echo.Context) error {
	body, err := formBody(c, "identification_code")
	if err != nil {
		return err
	}
	d, ps, err := s.SetProcessState(c.Request().Context(), actingEntity(c).ID, c.Param("id"), string(body["identification_code"]))
	if err != nil {
		return err
	}
	return respond(c, CodeProcessStateSet, map[string]any{"data": map[string]string{"id": d.PublicID, "identification_code": ps.Code}})
}

// The recipient's operations, for the API and the portal alike.

// maxReasonLength bounds a rejection's reason, in characters.
const maxReasonLength = 1000

// documentID reads a document id as the API and the portal give it.
func documentID(tx *store.Tx, raw string) (int64, error) {
	return tx.ParsePublicID(store.KindDocument, raw)
}

// receivedDocument reads, inside a transaction, a document the recipient received; anything else is
// 404.
func receivedDocument(tx *store.Tx, recipientID int64, rawID string) (store.Document, error) {
	id, err := documentID(tx, rawID)
	if err != nil {
		return store.Document{}, fail(CodeNotFound)
	}
	d, err := tx.DocumentByID(id)
	if errors.Is(err, store.ErrNotFound) || err == nil && (d.RecipientID != recipientID || d.State == store.StateToSend) {
		return store.Document{}, fail(CodeNotFound)
	}
	return d, err
}

// ImportDocument records that the recipient took a document it received into its own system; the
// document leaves its inbox. A repeat changes nothing; a rejected document cannot be imported.
func (w *Workflow) ImportDocument(ctx context.Context, recipientID int64, id string) (store.Document, error) {
	var d store.Document
	err := w.store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if d, err = receivedDocument(tx, recipientID, id); err != nil {
			return err
		}
		if _, ok := permit(evImport, byRecipient, d); !ok {
			return fieldError("document", CodeRejectedNoImport)
		}
		first, err := tx.MarkImported(d.ID)
		if err != nil || !first {
			return err
		}
		return tx.AddHistory(store.HistoryEntry{DocumentID: d.ID, Kind: "import", Description: "imported"})
	})
	return d, err
}

// DecideDocument records the recipient's acceptance or rejection of a document it received; a
// rejection needs a reason. Either is final: a rejected document comes back only as a new version
// the issuer sends.
func (w *Workflow) DecideDocument(ctx context.Context, recipientID int64, id string, accepted bool, reason string) (store.Document, error) {
	reason = strings.TrimSpace(reason)
	if !accepted && reason == "" {
		return store.Document{}, fieldError("reason", CodeRequired)
	}
	if len([]rune(reason)) > maxReasonLength {
		return store.Document{}, fieldError("reason", CodeInvalidValue)
	}
	on, data := evAccept, map[string]string{}
	if !accepted {
		on, data["reason"] = evReject, reason
	}
	var d store.Document
	var statusQueued bool
	err := w.store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if d, err = receivedDocument(tx, recipientID, id); err != nil {
			return err
		}
		t, ok := permit(on, byRecipient, d)
		if !ok {
			return fieldError("accepted", CodeFinalState)
		}
		if err := moveDocument(tx, &d, t, data); err != nil {
			return err
		}
		// A document that came by EDI: its sender learns the decision through a status message.
		statusQueued, err = w.statusBack(tx, &d, decisionCode(d, accepted), reason)
		return err
	})
	if err == nil {
		w.jobs.trigger(jobWebhooks)
	}
	if err == nil && statusQueued {
		w.jobs.trigger(jobEDI)
	}
	return d, err
}

// SetProcessState sets one of the recipient's process states on a document it received; the change
// goes into the document's history.
func (w *Workflow) SetProcessState(ctx context.Context, recipientID int64, id, code string) (store.Document, store.ProcessState, error) {
	var d store.Document
	var ps store.ProcessState
	me, err := w.store.EntityByID(ctx, recipientID)
	if errors.Is(err, store.ErrNotFound) {
		return d, ps, fail(CodeNotFound)
	} else if err != nil {
		return d, ps, err
	}
	if !me.ProcessStatesEnabled {
		return d, ps, fieldError("process_states", CodeProcessStatesOff)
	}
	if code = strings.TrimSpace(code); code == "" {
		return d, ps, fieldError("identification_code", CodeRequired)
	}
	err = w.store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if d, err = receivedDocument(tx, recipientID, id); err != nil {
			return err
		}
		if _, ok := permit(evProcessState, byRecipient, d); !ok {
			return fail(CodeNotFound)
		}
		ps, err = tx.ProcessState(recipientID, code)
		if errors.Is(err, store.ErrNotFound) {
			return fieldError("identification_code", CodeInvalidValue)
		}
		if err != nil {
			return err
		}
		if err := tx.SetProcessState(d.ID, ps.Code); err != nil {
			return err
		}
		data, _ := json.Marshal(map[string]string{"identification_code": ps.Code, "name": ps.Name, "previous": d.ProcessState})
		return tx.AddHistory(store.HistoryEntry{DocumentID: d.ID, Kind: "process_state", Description: "process_state", Data: data})
	})
	return d, ps, err
}
