package server

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"einvoice/server/i18n"
	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// Document endpoints: creation by XML (POST /apps/documentsUBL) or by data (POST /apps/documents),
// reading a document, its history and its files, and the issuer's states report.

// createDocumentUBL takes the XML in the multipart file field "document" or as the raw body.
func (s *Server) createDocumentUBL(c echo.Context) error {
	req := c.Request()
	mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	var xml []byte
	var flags IssueOptions
	b := &fieldBuilder{}
	switch mt {
	case mimeMultipart:
		form, err := c.MultipartForm()
		if err != nil {
			return bodyError(err)
		}
		defer form.RemoveAll()
		fh := form.File["document"]
		if len(fh) != 1 {
			return fieldError("document", CodeRequired)
		}
		if xml, err = readPart(fh[0]); err != nil {
			return err
		}
		v := func(name string) text { return text(strings.TrimSpace(first(form.Value[name]))) }
		flags = b.flags(v("send_by_email"), textsOf(form.Value, "additional_emails"), v("disable_xml_sign"), v("disable_pdf_sign"))
	default: // application/xml, text/xml: the options come in the query
		var err error
		if xml, err = io.ReadAll(req.Body); err != nil {
			return bodyError(err)
		}
		q := req.URL.Query()
		v := func(name string) text { return text(strings.TrimSpace(q.Get(name))) }
		flags = b.flags(v("send_by_email"), textsOf(q, "additional_emails"), v("disable_xml_sign"), v("disable_pdf_sign"))
	}
	if len(bytes.TrimSpace(xml)) == 0 {
		return fieldError("document", CodeRequired)
	}
	if err := b.err(); err != nil {
		return err
	}
	out, err := s.IssueXML(req.Context(), actingEntity(c), xml, flags, langOf(c))
	return respondIssued(c, out, err)
}

// createDocument takes structured data as multipart bracket fields or as a JSON object, builds the
// CIUS-PT XML and runs the same pipeline.
func (s *Server) createDocument(c echo.Context) error {
	var in documentData
	var uploads []upload
	mt, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if mt == mimeJSON {
		body, err := readBody(c.Request())
		if err != nil {
			return err
		}
		if err := decodeInto(body, &in); err != nil {
			return err
		}
		if uploads, err = jsonUploads(&in); err != nil {
			return err
		}
	} else {
		form, err := c.MultipartForm()
		if err != nil {
			return bodyError(err)
		}
		defer form.RemoveAll()
		tree, err := bracketTree(form.Value)
		if err != nil {
			return fieldError("body", CodeInvalidValue)
		}
		body, _ := json.Marshal(tree)
		if err := decodeInto(body, &in); err != nil {
			return err
		}
		if uploads, err = formUploads(form); err != nil {
			return err
		}
	}
	b := &fieldBuilder{}
	flags := b.flags(in.SendByEmail, in.AdditionalEmails, in.DisableXMLSign, in.DisablePDFSign)
	if err := b.err(); err != nil {
		return err
	}
	out, err := s.IssueData(c.Request().Context(), actingEntity(c), &in, uploads, flags, langOf(c))
	return respondIssued(c, out, err)
}

// respondIssued answers a creation: 201 s011, or 200 s012 for an edit.
func respondIssued(c echo.Context, out Issued, err error) error {
	if err != nil {
		return err
	}
	code := CodeDocumentCreated
	if out.Edited {
		code = CodeDocumentEdited
	}
	return respond(c, code, map[string]any{"data": summarize(out.Document, actingEntity(c).ID, langOf(c))})
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// textsOf collects a repeated field sent as name[], name[i] or name.
func textsOf(values map[string][]string, name string) []text {
	var out []text
	for _, v := range values[name] {
		out = append(out, text(strings.TrimSpace(v)))
	}
	for _, v := range values[name+"[]"] {
		out = append(out, text(strings.TrimSpace(v)))
	}
	for i := 0; i < 100; i++ {
		v, ok := values[name+"["+strconv.Itoa(i)+"]"]
		if !ok {
			break
		}
		out = append(out, text(strings.TrimSpace(first(v))))
	}
	return out
}

// readPart reads a file part (in memory or spooled to disk) whole.
func readPart(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, bodyError(err)
	}
	defer f.Close()
	data := make([]byte, fh.Size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, bodyError(err)
	}
	return data, nil
}

// maxAttachment is CIUS-PT's limit on an attachment: under 15,000 KB.
const maxAttachment = 15000 * 1024

// acceptedMIME are the attachment types CIUS-PT accepts (its MIME code list), by file extension.
var acceptedMIME = map[string]string{
	".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".csv": "text/csv",
	".txt": "text/plain", ".xml": "application/xml", ".doc": "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls":  "application/vnd.ms-excel", ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

// checkUpload names, types and bounds a received file: the visual PDF must be a PDF; every file must be
// a type CIUS-PT accepts and smaller than its limit.
func checkUpload(field, name, declared string, content []byte) (upload, error) {
	if len(content) == 0 {
		return upload{}, fieldError(field, CodeRequired)
	}
	if len(content) >= maxAttachment {
		return upload{}, fieldError(field, CodeAttachmentTooLarge)
	}
	ext := strings.ToLower(filepath.Ext(name))
	mt := acceptedMIME[ext]
	if declared != "" && declared != "application/octet-stream" {
		d, _, _ := mime.ParseMediaType(declared)
		if d == "text/xml" {
			d = "application/xml"
		}
		mt = d
	}
	if mt == "" && bytes.HasPrefix(content, []byte("%PDF-")) {
		mt = "application/pdf"
	}
	accepted := false
	for _, v := range acceptedMIME {
		accepted = accepted || v == mt
	}
	if !accepted || field == "file" && mt != "application/pdf" {
		return upload{}, fieldError(field, CodeAttachmentType)
	}
	name = safeFileName(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	if ext == "" {
		for e, v := range acceptedMIME {
			if v == mt && (ext == "" || len(e) < len(ext)) {
				ext = e
			}
		}
	}
	if utf8.RuneCountInString(name+ext) > 50 {
		name = string([]rune(name)[:50-len(ext)])
	}
	return upload{field: field, name: name + ext, mime: mt, content: content}, nil
}

// formUploads reads the file parts: file (the visual PDF) and files[] / files[i].
func formUploads(form *multipart.Form) ([]upload, error) {
	var out []upload
	if fhs := form.File["file"]; len(fhs) > 0 {
		if len(fhs) > 1 {
			return nil, fieldError("file", CodeInvalidValue)
		}
		u, err := uploadPart("file", fhs[0])
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	var parts []*multipart.FileHeader
	parts = append(parts, form.File["files[]"]...)
	parts = append(parts, form.File["files"]...)
	for i := 0; i < 100; i++ {
		fhs, ok := form.File["files["+strconv.Itoa(i)+"]"]
		if !ok {
			break
		}
		parts = append(parts, fhs...)
	}
	if len(parts) > 20 {
		return nil, fieldError("files", CodeInvalidValue)
	}
	for i, fh := range parts {
		u, err := uploadPart("files["+strconv.Itoa(i)+"]", fh)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

func uploadPart(field string, fh *multipart.FileHeader) (upload, error) {
	data, err := readPart(fh)
	if err != nil {
		return upload{}, err
	}
	return checkUpload(field, fh.Filename, fh.Header.Get(echo.HeaderContentType), data)
}

// jsonUploads reads the files of a JSON body (base64 content, line breaks and spaces allowed).
func jsonUploads(in *documentData) ([]upload, error) {
	var out []upload
	one := func(field string, f fileData) error {
		encoded := string(f.Content)
		if strings.ContainsAny(encoded, " \t") {
			encoded = strings.Join(strings.Fields(encoded), "")
		}
		content, err := base64.StdEncoding.DecodeString(encoded) // ignores line breaks itself
		if err != nil {
			return fieldError(field+"[content]", CodeInvalidValue)
		}
		u, err := checkUpload(field, cmp.Or(string(f.Filename), "file"), string(f.MIMEType), content)
		out = append(out, u)
		return err
	}
	if in.File != nil {
		if err := one("file", *in.File); err != nil {
			return nil, err
		}
	}
	for i, f := range in.Files { // at most 20: decodeInto refused more
		if err := one("files["+strconv.Itoa(i)+"]", f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// documentFor reads a document the acting entity issued or received; anyone else gets 404.
func (s *Server) documentFor(c echo.Context) (store.Document, error) {
	return s.partyDocument(c.Request().Context(), actingEntity(c).ID, c.Param("id"))
}

// getDocument is GET /apps/documents/{id}.
func (s *Server) getDocument(c echo.Context) error {
	d, err := s.documentFor(c)
	if err != nil {
		return err
	}
	v, err := s.documentView(c.Request().Context(), d, actingEntity(c).ID, s.apiFileURL(c, d), langOf(c))
	if err != nil {
		return err
	}
	return respondData(c, true, v)
}

// listDocuments is GET /apps/documents. document_type chooses the list: received (the default) is the
// acting entity's received documents not yet imported or rejected, newest first; issued is every
// document it issued, newest emission date first. Filters: number (document_number, the incumbent's
// name for it, is the same filter), type_document_fact, supplier_nif, emission_date_start and
// emission_date_end. Each item is the whole document, as GET /apps/documents/{id} shows it.
func (s *Server) listDocuments(c echo.Context) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	q, me := c.QueryParams(), actingEntity(c)
	f := store.InboxFilter{RecipientID: me.ID, TypeCode: strings.ToUpper(q.Get("type_document_fact")), Offset: p.offset(), Limit: p.rows}
	errs := FieldErrors{}
	switch q.Get("document_type") {
	case "", "received":
	case "issued":
		f.Issued = true
	default:
		errs["document_type"] = Problem{Code: CodeInvalidValue}
	}
	number, documentNumber := q.Get("number"), q.Get("document_number")
	if number != "" && documentNumber != "" && number != documentNumber {
		errs["document_number"] = Problem{Code: CodeInvalidValue} // two different numbers: no document has both
	}
	f.Number = cmp.Or(number, documentNumber)
	if v := q.Get("supplier_nif"); v != "" {
		_, f.SupplierNIF = splitTaxID(v, "")
	}
	for name, dst := range map[string]*string{"emission_date_start": &f.From, "emission_date_end": &f.To} {
		if v := q.Get(name); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				errs[name] = Problem{Code: CodeInvalidValue}
			}
			*dst = v
		}
	}
	if len(errs) > 0 {
		return errs
	}
	ctx := c.Request().Context()
	docs, total, err := s.store.Inbox(ctx, f)
	if err != nil {
		return err
	}
	views, err := s.documentViews(ctx, docs, me.ID, func(d store.Document) fileURL { return s.apiFileURL(c, d) }, langOf(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, success{Success: true, Response: s.paginate(c, p, total, len(views), views)})
}

// historyView is one entry of GET /apps/documents/{id}/history.
type historyView struct {
	ID          string          `json:"id"`
	Kind        string          `json:"kind"`
	Description string          `json:"description"`
	State       *codedValue     `json:"state,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	CreatedAt   string          `json:"created_at"`
}

// documentHistory is GET /apps/documents/{id}/history: state changes, edits and, for the issuer, its
// e-mails, oldest first.
func (s *Server) documentHistory(c echo.Context) error {
	d, err := s.documentFor(c)
	if err != nil {
		return err
	}
	entries, err := s.historyFor(c.Request().Context(), d, actingEntity(c).ID)
	if err != nil {
		return err
	}
	lang, issuer := langOf(c), actingEntity(c).ID == d.IssuerID
	out := make([]historyView, 0, len(entries))
	for _, h := range entries {
		if h.Kind == "email" && !issuer {
			continue // the issuer's e-mail records (addresses, its own copies) are its alone
		}
		v := historyView{ID: h.PublicID, Kind: h.Kind, Description: h.Description, Data: h.Data, CreatedAt: h.CreatedAt}
		if key := "api.history." + h.Description; i18n.Has(key) {
			v.Description = i18n.T(lang, key)
		}
		if h.State != "" {
			st := stateOf(h.State, lang)
			v.State = &st
		}
		out = append(out, v)
	}
	return respondData(c, true, out)
}

// downloadXML, downloadPDF and downloadFile serve a document's files to its issuer and recipient.
func (s *Server) downloadXML(c echo.Context) error  { return s.download(c, "xml") }
func (s *Server) downloadPDF(c echo.Context) error  { return s.download(c, "pdf") }
func (s *Server) downloadFile(c echo.Context) error { return s.download(c, c.Param("file")) }

func (s *Server) download(c echo.Context, file string) error {
	d, err := s.documentFor(c)
	if err != nil {
		return err
	}
	return s.sendFile(c, d, file)
}

// stateEventView is one event of the states report.
type stateEventView struct {
	ID            string       `json:"id"`
	DocumentID    string       `json:"document_id"`
	Number        string       `json:"number"`
	TypeFact      typeFactView `json:"type_document_fact"`
	State         codedValue   `json:"state_document"`
	PreviousState *codedValue  `json:"previous_state"`
	EDIState      ediStateView `json:"state_edi_document"`
	CreatedAt     string       `json:"created_at"`
}

// statesReport is GET /apps/states-report/documents: the acting issuer's unread state events.
func (s *Server) statesReport(c echo.Context) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	f := store.EventFilter{EntityID: actingEntity(c).ID, Number: c.QueryParam("number"), Offset: p.offset(), Limit: p.rows}
	errs := FieldErrors{}
	if v := c.QueryParam("document_id"); v != "" {
		if f.DocumentID, err = s.store.ParsePublicID(store.KindDocument, v); err != nil {
			f.DocumentID = -1 // no document has it: the report is empty, as for any unknown document
		}
	}
	if v := c.QueryParam("state"); v != "" {
		if _, ok := documentStates[v]; !ok {
			errs["state"] = Problem{Code: CodeInvalidValue}
		}
		f.State = v
	}
	for name, dst := range map[string]*string{"created_at_start": &f.From, "created_at_end": &f.To} {
		v := c.QueryParam(name)
		if v == "" {
			continue
		}
		t, err := parseDateTime(v, name == "created_at_end")
		if err != nil {
			errs[name] = Problem{Code: CodeInvalidValue}
		}
		*dst = t
	}
	if len(errs) > 0 {
		return errs
	}
	events, total, err := s.store.StateEvents(c.Request().Context(), f)
	if err != nil {
		return err
	}
	lang := langOf(c)
	views := make([]stateEventView, len(events))
	for i, e := range events {
		views[i] = stateEventView{ID: e.PublicID, DocumentID: e.DocumentPublicID, Number: e.Number,
			TypeFact: typeFactOf(e.TypeCode, lang), State: stateOf(e.State, lang), EDIState: viewEDIState(e.EDIState, lang), CreatedAt: e.CreatedAt}
		if e.PreviousState != "" {
			prev := stateOf(e.PreviousState, lang)
			views[i].PreviousState = &prev
		}
	}
	return c.JSON(http.StatusOK, success{Success: true, Response: s.paginate(c, p, total, len(views), views)})
}

// parseDateTime reads a date (the whole day) or a date and time, as a stored timestamp bound.
func parseDateTime(v string, end bool) (string, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		if end {
			return t.Format(time.DateOnly) + " 23:59:59", nil
		}
		return t.Format(store.TimeLayout), nil
	}
	t, err := time.Parse(store.TimeLayout, v)
	if err != nil {
		return "", err
	}
	return t.Format(store.TimeLayout), nil
}

// markEventsRead is POST /apps/states-report/documents/read with events[] (ids). Ids that are not the
// acting issuer's unread events (or not event ids at all) refuse the whole request, naming none of them.
func (s *Server) markEventsRead(c echo.Context) error {
	var ids []string
	mt, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if mt == mimeJSON {
		var body struct {
			Events []text `json:"events"`
		}
		raw, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return bodyError(err)
		}
		if err := decodeInto(raw, &body); err != nil {
			return err
		}
		for _, e := range body.Events {
			ids = append(ids, string(e))
		}
	} else {
		form, err := c.FormParams()
		if err != nil {
			return bodyError(err)
		}
		for _, t := range textsOf(form, "events") {
			ids = append(ids, string(t))
		}
	}
	read, err := s.MarkEventsRead(c.Request().Context(), actingEntity(c).ID, ids)
	if err != nil {
		return err
	}
	return respond(c, CodeEventsRead, map[string]any{"data": map[string]int{"read": read}})
}
