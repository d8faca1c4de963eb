package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// The recipient's side: the inbox of received documents, import confirmation, acceptance or rejection,
// and process states.

// receivedView is one item of GET /apps/documents: the main data and the download addresses.
type receivedView struct {
	documentSummary
	EDIState  ediStateView `json:"state_edi_document"`
	Supplier  partyBrief   `json:"supplier"`
	Customer  partyBrief   `json:"customer"`
	Currency  string       `json:"currency"`
	Payable   string       `json:"payable_amount"`
	CreatedAt string       `json:"created_at"`
	XMLURL    string       `json:"xml_url"`
	PDFURL    string       `json:"pdf_url"`
}

type partyBrief struct {
	Number      string `json:"number"`
	CountryCode string `json:"country_code"`
	Name        string `json:"name"`
}

// listReceived is GET /apps/documents: received documents not yet imported or rejected, newest first.
// Filters: number, type_document_fact, supplier_nif, emission_date_start, emission_date_end.
func (s *Server) listReceived(c echo.Context) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	f := store.InboxFilter{RecipientID: actingEntity(c).ID, Number: c.QueryParam("number"),
		TypeCode: strings.ToUpper(c.QueryParam("type_document_fact")), Offset: p.offset(), Limit: p.rows}
	if v := c.QueryParam("supplier_nif"); v != "" {
		_, f.SupplierNIF = splitTaxID(v, "")
	}
	errs := FieldErrors{}
	for name, dst := range map[string]*string{"emission_date_start": &f.From, "emission_date_end": &f.To} {
		if v := c.QueryParam(name); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				errs[name] = Problem{Code: CodeInvalidValue}
			}
			*dst = v
		}
	}
	if len(errs) > 0 {
		return errs
	}
	docs, total, err := s.store.Inbox(c.Request().Context(), f)
	if err != nil {
		return err
	}
	lang, me := langOf(c), actingEntity(c).ID
	views := make([]receivedView, len(docs))
	for i, d := range docs {
		url := s.apiFileURL(c, d)
		v := receivedView{
			documentSummary: summarize(d, me, lang), EDIState: viewEDIState(d.EDIState, lang),
			Supplier: partyBrief{d.Supplier.NIF, d.Supplier.Country, d.Supplier.Name},
			Customer: partyBrief{d.Customer.NIF, d.Customer.Country, d.Customer.Name},
			Currency: d.Currency, Payable: d.PayableAmount, CreatedAt: d.CreatedAt, XMLURL: url("xml"), PDFURL: url("pdf"),
		}
		views[i] = v
	}
	return c.JSON(http.StatusOK, success{Success: true, Response: s.paginate(c, p, total, len(views), views)})
}

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

// receivedDocument reads, inside a transaction, a document the acting entity received; anything else
// is 404.
func receivedDocument(tx *store.Tx, c echo.Context) (store.Document, error) {
	id, err := tx.ParsePublicID(store.KindDocument, c.Param("id"))
	if err != nil {
		return store.Document{}, fail(CodeNotFound)
	}
	d, err := tx.DocumentByID(id)
	if errors.Is(err, store.ErrNotFound) || err == nil && (d.RecipientID != actingEntity(c).ID || d.State == store.StateToSend) {
		return store.Document{}, fail(CodeNotFound)
	}
	return d, err
}

// importDocument is POST /apps/documents/{id}: the recipient confirms it imported the document. A
// repeat changes nothing; a rejected document cannot be imported.
func (s *Server) importDocument(c echo.Context) error {
	if _, err := formBody(c); err != nil {
		return err
	}
	var d store.Document
	err := s.store.Update(c.Request().Context(), func(tx *store.Tx) error {
		var err error
		if d, err = receivedDocument(tx, c); err != nil {
			return err
		}
		if d.State == store.StateRejected {
			return fieldError("document", CodeRejectedNoImport)
		}
		first, err := tx.MarkImported(d.ID)
		if err != nil || !first {
			return err
		}
		return tx.AddHistory(store.HistoryEntry{DocumentID: d.ID, Kind: "import", Description: "imported"})
	})
	if err != nil {
		return err
	}
	return respond(c, CodeDocumentImported, map[string]any{"data": summarize(d, actingEntity(c).ID, langOf(c))})
}

// acceptDocument is POST /apps/documents/{id}/accepted with accepted (1/0, true/false) and reason,
// required when not accepted. The issuer's document becomes accepted or rejected; either is final.
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
	reason := strings.TrimSpace(string(body["reason"]))
	if !accepted && reason == "" {
		return fieldError("reason", CodeRequired)
	}
	if len([]rune(reason)) > 1000 {
		return fieldError("reason", CodeInvalidValue)
	}
	var d store.Document
	err = s.store.Update(c.Request().Context(), func(tx *store.Tx) error {
		var err error
		if d, err = receivedDocument(tx, c); err != nil {
			return err
		}
		if d.State != store.StateSent {
			return fieldError("accepted", CodeFinalState)
		}
		previous := d.State
		d.State, d.EDIState = store.StateAccepted, ediAccepted
		data := map[string]string{}
		if !accepted {
			// Rejected: the issuer may correct the document and send it again.
			d.State, d.EDIState, data["reason"] = store.StateRejected, ediRegularization, reason
		}
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		return stateChanged(tx, &d, previous, data)
	})
	if err != nil {
		return err
	}
	s.jobs.trigger(jobWebhooks)
	return respond(c, CodeStateCommunicated, map[string]any{"data": summarize(d, actingEntity(c).ID, langOf(c))})
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

// setProcessState is PUT /apps/documents/{id}/processstates with identification_code: the recipient
// sets one of its process states on a received document; the change goes into the history.
func (s *Server) setProcessState(c echo.Context) error {
	me := actingEntity(c)
	body, err := formBody(c, "identification_code")
	if err != nil {
		return err
	}
	if !me.ProcessStatesEnabled {
		return fieldError("process_states", CodeProcessStatesOff)
	}
	code := strings.TrimSpace(string(body["identification_code"]))
	if code == "" {
		return fieldError("identification_code", CodeRequired)
	}
	var d store.Document
	err = s.store.Update(c.Request().Context(), func(tx *store.Tx) error {
		var err error
		if d, err = receivedDocument(tx, c); err != nil {
			return err
		}
		ps, err := tx.ProcessState(me.ID, code)
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
	if err != nil {
		return err
	}
	return respond(c, CodeProcessStateSet, map[string]any{"data": map[string]string{"id": d.PublicID, "identification_code": code}})
}
