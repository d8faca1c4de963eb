package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"einvoice/store"
	"einvoice/ubl"
)

// logBuffer collects what the service logs, safely across goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the records logged at level (WARN, ERROR) or above it that contain what.
func (b *logBuffer) lines(what string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, l := range strings.Split(b.buf.String(), "\n") {
		if strings.Contains(l, what) && (strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR")) {
			out = append(out, l)
		}
	}
	return out
}

// captureLogs sends the service's log to a buffer the test reads.
func (e *docEnv) captureLogs() *logBuffer {
	b := &logBuffer{}
	e.srv.log = slog.New(slog.NewTextHandler(b, nil))
	return b
}

// xmlWithPDF is a valid invoice from the env's issuer to its customer that embeds a PDF attachment.
func xmlWithPDF(t *testing.T, env *docEnv, number, name string, content []byte) string {
	t.Helper()
	var in documentData
	if err := decodeInto([]byte(invoiceJSON(number, env.customer.NIF, "")), &in); err != nil {
		t.Fatal(err)
	}
	m, err := buildDocument(&in, env.entity)
	if err != nil {
		t.Fatal(err)
	}
	embedUploads(m, []upload{{field: "files[0]", name: name, mime: "application/pdf", content: content}})
	xml, err := ubl.Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(xml)
}

// A PDF the issuer's seal cannot sign refuses the document by either method, naming the file: nothing
// is stored (unsigned or otherwise) or charged, and the failure is logged once.
func TestUnsignablePDFRefusesTheDocument(t *testing.T) {
	env := newDocEnv(t)
	env.giveSeal(issuerSeal())
	logs := env.captureLogs()
	ctx := context.Background()
	five := int64(5)
	env.st.UpdateEntity(ctx, env.entity.ID, store.EntityChanges{Transactions: &five})
	broken := []byte("%PDF-1.7\nthis is no PDF a reader can open\n")

	r := env.post("/documentsUBL", env.entity, "application/xml", xmlWithPDF(t, env, "U2", "broken.pdf", broken))
	expectError(t, r, 400, "document:e364")
	if details, _ := r.body["errors"].(map[string]any)["document"].(map[string]any)["details"].(map[string]any); details["file"] != "broken.pdf" {
		t.Fatalf("the refusal does not name the file: %s", r.raw)
	}
	body, ct := multipartBody(t, formFields(t, invoiceJSON("U1", env.customer.NIF, "")), map[string][]byte{"files[0]": broken})
	expectError(t, env.post("/documents", env.entity, ct, body), 400, "files[0]:e364")
	if n := len(logs.lines("a PDF cannot be signed")); n != 2 {
		t.Fatalf("%d log records for two refusals:\n%s", n, logs.buf.String())
	}

	// Nothing was stored: the same numbers create new documents; nothing was charged for the refusals.
	for _, number := range []string{"U1", "U2"} {
		r := env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, number, env.customer.NIF)))
		if r.status != 201 || r.body["message"].(map[string]any)["code"] != "s011" {
			t.Fatalf("%s after its refusal: %d %s", number, r.status, r.raw)
		}
	}
	if e, _ := env.st.EntityByID(ctx, env.entity.ID); e.Transactions != 5 {
		t.Fatalf("balance %d after refused documents, want 5", e.Transactions)
	}
	if total, _ := env.inbox(""); total != 2 {
		t.Fatalf("the customer received %d documents, want the 2 made after the refusals", total)
	}

	// The same PDF sent when the service does not sign PDFs is kept as it came.
	id := created(t, env.post("/documentsUBL?disable_pdf_sign=1", env.entity, "application/xml", xmlWithPDF(t, env, "U3", "broken.pdf", broken)))
	doc := data(env.do("GET", "/api/v1/en/apps/documents/"+id, env.as(env.entity, ""), ""))
	found := false
	for _, a := range doc["attachments"].([]any) {
		if file := a.(map[string]any)["file"].(string); a.(map[string]any)["identifier"] == "broken.pdf" {
			found = bytes.Equal([]byte(env.fetchPublic(file).raw), broken)
		}
	}
	if !found {
		t.Fatalf("the unsigned attachment was not kept as sent: %v", doc["attachments"])
	}
}
