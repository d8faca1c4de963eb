package server

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"einvoice/signing"
	"einvoice/store"
)

// utf16be is how the PDF's document information writes a text.
func utf16be(s string) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u>>8), byte(u))
	}
	return out
}

// pdfFiles counts the visual PDFs kept for a document.
func pdfFiles(t *testing.T, st *store.Store, id string) int {
	t.Helper()
	rowID, err := st.ParsePublicID(store.KindDocument, id)
	if err != nil {
		t.Fatal(err)
	}
	files, err := st.DocumentFiles(context.Background(), rowID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if f.Role == store.FilePDF {
			n++
		}
	}
	return n
}

// The PDF of a document made from an XML without one is rendered on first request, once: concurrent
// first requests by the issuer and the recipient, through the API in both languages and through the
// public link, all get the same signed bytes, in the language the document was issued in, and one PDF
// is kept.
func TestRenderedPDFIsMadeOnceForEveryone(t *testing.T) {
	env := newDocEnv(t)
	env.giveSeal(issuerSeal())
	id := created(t, env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "P1", env.customer.NIF)))) // in English
	doc, err := env.st.DocumentByID(context.Background(), env.rowID(store.KindDocument, id))
	if err != nil {
		t.Fatal(err)
	}
	public := env.srv.publicFileURL(doc, env.customer.ID)("pdf")
	public = public[strings.Index(public, "/public/"):]

	const callers = 12
	bodies := make([][]byte, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			as, lang := env.entity, "pt"
			if i%2 == 1 {
				as, lang = env.customer, "en"
			}
			path, header := "/api/v1/"+lang+"/apps/documents/"+id+"/pdf", env.as(as, "")
			if i%3 == 2 {
				path, header = public, nil
			}
			r := env.do("GET", path, header, "")
			if r.status != 200 {
				t.Errorf("caller %d: %d %s", i, r.status, r.raw)
			}
			bodies[i] = []byte(r.raw)
		}()
	}
	wg.Wait()
	for i, b := range bodies {
		if !bytes.Equal(b, bodies[0]) {
			t.Fatalf("caller %d got other bytes than caller 0", i)
		}
	}
	if kind := pdfSignature(t, bodies[0]); kind != "PAdES" {
		t.Fatalf("the rendered PDF is %s-signed", kind)
	}
	if !bytes.Contains(bodies[0], utf16be("Invoice P1")) {
		t.Fatal("the PDF is not in the document's language (English)")
	}
	if n := pdfFiles(t, env.st, id); n != 1 {
		t.Fatalf("%d PDFs kept, want 1", n)
	}
	// An edit is a new version: its PDF is rendered again, once.
	if r := env.post("/documents/"+id+"/accepted", env.customer, "application/json", `{"accepted": 0, "reason": "errado"}`); r.status != 200 {
		t.Fatalf("reject: %d %s", r.status, r.raw)
	}
	if r := env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "P1", env.customer.NIF))); r.status != 200 {
		t.Fatalf("edit: %d %s", r.status, r.raw)
	}
	if n := pdfFiles(t, env.st, id); n != 0 {
		t.Fatalf("the edited document kept %d PDFs of its previous version", n)
	}
	env.file(id, "pdf")
	if n := pdfFiles(t, env.st, id); n != 1 {
		t.Fatalf("%d PDFs of the new version, want 1", n)
	}
}

// While the issuer's seal cannot sign, the rendered PDF is neither served nor kept unsigned: the
// download answers with the seal's code, and once the seal is renewed, the signed PDF is made and kept.
func TestRenderedPDFIsNeverKeptUnsigned(t *testing.T) {
	env := newDocEnv(t)
	env.giveSeal(issuerSeal())
	id := created(t, env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "Q1", env.customer.NIF))))

	now := time.Now()
	expired, err := signing.SelfSignedSeal("Fornecedor", "508025338", now.AddDate(-2, 0, 0), now.AddDate(-1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	env.giveSeal(expired)
	expectError(t, env.do("GET", "/api/v1/en/apps/documents/"+id+"/pdf", env.as(env.entity, ""), ""), 400, "seal:e347")
	if n := pdfFiles(t, env.st, id); n != 0 {
		t.Fatalf("%d PDFs kept while the seal could not sign", n)
	}

	env.giveSeal(issuerSeal())
	if kind := pdfSignature(t, env.file(id, "pdf")); kind != "PAdES" {
		t.Fatalf("after the seal was renewed the PDF is %s-signed", kind)
	}
	if n := pdfFiles(t, env.st, id); n != 1 {
		t.Fatalf("%d PDFs kept, want 1", n)
	}
}
