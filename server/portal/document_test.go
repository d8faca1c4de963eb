package portal

import (
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/signing"
	"einvoice/store"
)

// sampleXML is the sample invoice under number, without the signature the new number would break.
func sampleXML(t *testing.T, number string) string {
	t.Helper()
	xml, err := os.ReadFile(filepath.Join("..", "..", "docs", "sample-invoice.xml"))
	if err != nil {
		t.Fatal(err)
	}
	unsigned := regexp.MustCompile(`(?s)<ext:UBLExtensions.*</ext:UBLExtensions>`).ReplaceAllString(string(xml), "")
	return strings.ReplaceAll(unsigned, "FT 2026/128", number)
}

// upload posts a multipart form with the XML as its "document" file, as the browser's form does.
func (b *browser) upload(path, xml string, fields url.Values) (*http.Response, string) {
	b.t.Helper()
	return b.uploadFile(path, fields, "document", "invoice.xml", []byte(xml))
}

// uploadFile posts a multipart form with one file, as the browser does.
func (b *browser) uploadFile(path string, fields url.Values, fileField, fileName string, content []byte) (*http.Response, string) {
	b.t.Helper()
	var body strings.Builder
	w := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			w.WriteField(k, v)
		}
	}
	fw, _ := w.CreateFormFile(fileField, fileName)
	fw.Write(content)
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, b.site.http.URL+path, strings.NewReader(body.String()))
	b.sameOrigin(req, w.FormDataContentType())
	return b.send(req)
}

// page asserts a 200 and returns the body.
func (b *browser) page(path string) string {
	b.t.Helper()
	resp, body := b.do(http.MethodGet, path, nil)
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return body
}

func has(t *testing.T, what, body string, needles ...string) {
	t.Helper()
	for _, n := range needles {
		if !strings.Contains(body, n) {
			t.Fatalf("%s: no %s", what, n)
		}
	}
}

func TestIssueByUploadAndCorrect(t *testing.T) {
	s := newSite(t)
	ctx := context.Background()
	now := time.Now()
	seal, err := signing.SelfSignedSeal("Fornecedor", "508025338", now.Add(-time.Hour), now.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := server.KeepSeal(ctx, s.st, s.supplier.ID, seal); err != nil {
		t.Fatal(err)
	}
	supplier, viewer, operator, stranger := s.everyRole()

	// The form, linked from the menu, the overview and the issued list; a viewer has none.
	for _, path := range []string{"/portal/", "/portal/issued"} {
		has(t, path, supplier.page(path), `href="/portal/documents/new"`)
	}
	has(t, "form", supplier.page("/portal/documents/new"), `action="/portal/documents/new"`, `name="document"`, `name="send_by_email"`,
		`name="additional_emails"`, `name="disable_xml_sign"`, `name="disable_pdf_sign"`)
	if _, body := viewer.do(http.MethodGet, "/portal/", nil); strings.Contains(body, "/portal/documents/new") {
		t.Fatal("a viewer is offered the upload")
	}
	if resp, _ := viewer.do(http.MethodGet, "/portal/documents/new", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("viewer's form: %d", resp.StatusCode)
	}
	if resp, _ := viewer.upload("/portal/documents/new", sampleXML(t, "FT 2026/700"), nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("viewer's upload: %d", resp.StatusCode)
	}

	// Refusals: the official rules' findings with their rule ids, and each field's code.
	bad := strings.Replace(sampleXML(t, "FT 2026/700"), "<cbc:DocumentCurrencyCode>EUR<", "<cbc:DocumentCurrencyCode>XXX<", 1)
	resp, body := supplier.upload("/portal/documents/new", bad, nil)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("invalid upload: %d", resp.StatusCode)
	}
	has(t, "invalid upload", body, `data-code="`+server.CodeInvalidDocument.ID+`"`, `data-message="new.refused"`)
	if !regexp.MustCompile(`<tr data-rule="[A-Z]+-[A-Z0-9-]+">`).MatchString(body) {
		t.Fatal("invalid upload: no finding with a rule id")
	}
	resp, body = supplier.upload("/portal/documents/new", sampleXML(t, "FT 2026/700"), url.Values{"send_by_email": {"1"}, "additional_emails": {"not-an-address"}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a wrong address: %d", resp.StatusCode)
	}
	has(t, "a wrong address", body, `data-code="`+server.CodeInvalidValue.ID+`"`, `value="1" checked`)
	resp, body = supplier.upload("/portal/documents/new", "   ", nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeRequired.ID+`"`) {
		t.Fatalf("an empty file: %d", resp.StatusCode)
	}
	if resp, _ := stranger.upload("/portal/documents/new", sampleXML(t, "FT 2026/700"), nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("another entity's invoice: %d", resp.StatusCode)
	}

	// Issued, signed by the service, e-mailed; the page shows it.
	resp, _ = supplier.upload("/portal/documents/new", sampleXML(t, "FT 2026/700"), url.Values{"send_by_email": {"1"}, "additional_emails": {"contabilidade@cliente.example"}})
	page := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !regexp.MustCompile(`^/portal/documents/[0-9a-f]{32}$`).MatchString(page) {
		t.Fatalf("upload: %d %s", resp.StatusCode, page)
	}
	body = supplier.page(page)
	has(t, "issued page", body, `data-message="new.issued"`, "FT 2026/700", `data-signature="XAdES:verified"`, `data-event="email_queued"`,
		"contabilidade@cliente.example", `action="`+page+`/resend"`)
	if strings.Contains(body, `action="`+page+`/correct"`) {
		t.Fatal("a delivered document is offered the correction")
	}
	if resp, body = supplier.upload(page+"/correct", sampleXML(t, "FT 2026/700"), nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `data-code="`+server.CodeAlreadyExists.ID+`"`) {
		t.Fatalf("correcting a delivered document: %d", resp.StatusCode)
	}
	if pdf := supplier.page(page + "/pdf"); !strings.HasPrefix(pdf, "%PDF-") {
		t.Fatal("no PDF")
	}
	has(t, "after the PDF", supplier.page(page), `data-signature="PAdES:verified"`)

	// Rejected by the recipient, it can be corrected: the same document only, and by its issuer only.
	if resp, _ = operator.do(http.MethodPost, page+"/decision", url.Values{"accepted": {"0"}, "reason": {"Falta a referência BR-CO-15"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("rejection: %d", resp.StatusCode)
	}
	body = supplier.page(page)
	has(t, "rejected page", body, `action="`+page+`/correct"`, `class="reason"`, `data-rule="BR-CO-15"`, `name="send_by_email" value="1"`)
	has(t, "correct form", supplier.page(page+"/correct"), `action="`+page+`/correct"`, `value="1" checked`)
	if resp, body = supplier.upload(page+"/correct", sampleXML(t, "FT 2026/701"), nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `data-code="`+server.CodeOtherDocument.ID+`"`) {
		t.Fatalf("another document as a correction: %d", resp.StatusCode)
	}
	for _, b := range []*browser{operator, stranger} {
		if resp, _ := b.upload(page+"/correct", sampleXML(t, "FT 2026/700"), nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a correction by another entity: %d", resp.StatusCode)
		}
	}
	if resp, _ = supplier.upload(page+"/correct", strings.Replace(sampleXML(t, "FT 2026/700"), "<cbc:DocumentCurrencyCode>EUR<", "<cbc:DocumentCurrencyCode>XXX<", 1), nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an invalid correction: %d", resp.StatusCode)
	}
	resp, _ = supplier.upload(page+"/correct", sampleXML(t, "FT 2026/700"), url.Values{"send_by_email": {"1"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("correction: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	body = supplier.page(page)
	has(t, "corrected page", body, `data-message="correct.done"`, `data-event="edit"`, `class="badge sent"`)
	has(t, "the recipient's page", operator.page(page), `action="`+page+`/decision"`)

	// Delivered again, it is no longer editable: no correction form.
	if resp, _ := supplier.do(http.MethodGet, page+"/correct", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the correction form of a delivered document: %d", resp.StatusCode)
	}
	// The pages in both languages, with no text left unformatted.
	for _, lang := range []string{"pt", "en"} {
		supplier.do(http.MethodGet, "/portal/lang/"+lang+"?next=/portal/", nil)
		for _, path := range []string{"/portal/", "/portal/documents/new", page} {
			if body := supplier.page(path); !strings.Contains(body, `<html lang="`+lang+`">`) || strings.Contains(body, "%!") {
				t.Fatalf("%s in %s: not that language, or a text left unformatted", path, lang)
			}
		}
	}
}

func TestResendAndAttention(t *testing.T) {
	s := newSite(t)
	ctx := context.Background()
	hook, err := s.st.CreateWebhook(ctx, store.Webhook{EntityID: s.supplier.ID, URL: "https://hooks.example/x", Key: "k", Events: []string{"document.state_changed"}})
	if err != nil {
		t.Fatal(err)
	}
	s.issue("FT 2026/800")
	supplier, viewer, stranger := s.browser(), s.browser(), s.browser()
	supplier.login("fornecedor")
	viewer.login("cliente")
	stranger.login("outra")
	_, list := supplier.do(http.MethodGet, "/portal/issued", nil)
	page := regexp.MustCompile(`href="(/portal/documents/[0-9a-f]{32})"`).FindStringSubmatch(list)[1]

	// Issued without e-mail: resending needs addresses.
	resp, body := supplier.do(http.MethodPost, page+"/resend", url.Values{"addresses": {""}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeNoAddresses.ID+`"`) {
		t.Fatalf("resend to no one: %d", resp.StatusCode)
	}
	resp, body = supplier.do(http.MethodPost, page+"/resend", url.Values{"addresses": {"a@cliente.example, nonsense"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeInvalidValue.ID+`"`) {
		t.Fatalf("resend to a wrong address: %d", resp.StatusCode)
	}
	if resp, _ = viewer.do(http.MethodPost, page+"/resend", url.Values{"addresses": {"a@cliente.example"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("viewer's resend: %d", resp.StatusCode)
	}
	if resp, _ = stranger.do(http.MethodPost, page+"/resend", url.Values{"addresses": {"a@cliente.example"}}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("stranger's resend: %d", resp.StatusCode)
	}
	resp, _ = supplier.do(http.MethodPost, page+"/resend", url.Values{"addresses": {"a@cliente.example; b@cliente.example A@cliente.example"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("resend: %d", resp.StatusCode)
	}
	body = supplier.page(page)
	// The sample's own signature no longer matches its new number, and the service signs nothing here.
	has(t, "after the resend", body, `data-message="doc.resent"`, `data-email="queued"`, "b@cliente.example", `data-signature="XAdES:invalid"`)
	if n := strings.Count(body, `data-event="email_queued"`); n != 2 {
		t.Fatalf("%d e-mails queued, want 2", n)
	}

	// One of them fails for good, and the webhook's delivery fails: the overview says so.
	id, _ := s.st.ParsePublicID(store.KindDocument, strings.TrimPrefix(page, "/portal/documents/"))
	emails, _ := s.st.DocumentEmails(ctx, id)
	if err := s.st.RecordEmails(ctx, []store.EmailOutcome{{ID: emails[0].ID, Error: "550 no such user"}}); err != nil {
		t.Fatal(err)
	}
	due, _ := s.st.ClaimOutbox(ctx, "webhook", "9999", "9999", 10)
	if len(due) == 0 {
		t.Fatal("no webhook delivery to fail")
	}
	if err := s.st.RecordOutbox(ctx, []store.OutboxResult{{ID: due[0].ID, NextAt: "9999", Error: "HTTP 500",
		Attempt: &store.WebhookAttempt{WebhookID: hook.ID, Attempt: 1, StatusCode: 500, Error: "HTTP 500"}}}); err != nil {
		t.Fatal(err)
	}
	body = supplier.page("/portal/")
	has(t, "overview", body, `<li data-attention="attention.failed_emails"><a href="`+page+`"`,
		`<li data-attention="attention.failing_webhooks"><a href="/portal/settings#webhooks"`)
	has(t, "document with a failed e-mail", supplier.page(page), `data-event="email_failed"`, `data-email="failed"`)

	// Sent again to the same address, the failure needs no one any more.
	supplier.do(http.MethodPost, page+"/resend", url.Values{"addresses": {emails[0].Address}})
	if body = supplier.page("/portal/"); strings.Contains(body, `data-attention="attention.failed_emails"`) {
		t.Fatal("an e-mail sent again still needs attention")
	}
}

// The timeline names every kind of history entry, and the reasons carry the rule and status codes.
func TestTimelineAndReasons(t *testing.T) {
	history := []store.HistoryEntry{
		{Kind: "state", State: store.StateToSend, Data: []byte(`{"to_send_status":"no_connection","previous_state":""}`)},
		{Kind: "email", Description: "email_queued", Data: []byte(`{"email_id":"e1","address":"a@b.example"}`)},
		{Kind: "email", Description: "email_returned", Data: []byte(`{"email_id":"e1","address":"a@b.example","error":"returned: 5.1.1"}`)},
		{Kind: "edi", Description: "error", Data: []byte(`{"edi_status":"ERROR","reason":"PT-R-001 and BR-CO-15 fail; BR-CO-15 again, DT-CIUS-PT-098.3.","previous_state":"tosend"}`)},
		{Kind: "edit", Description: "edited"},
		{Kind: "state", State: store.StateRejected, Data: []byte(`{"reason":"Falta a encomenda","previous_state":"sent"}`)},
		{Kind: "import", Description: "imported"},
		{Kind: "process_state", Description: "process_state", Data: []byte(`{"identification_code":"P1","name":"Em aprovação"}`)},
	}
	events, reasons := timeline(history, "en")
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
		if e.What == "" || strings.Contains(e.What, "%!") {
			t.Fatalf("event %s: %q", e.Kind, e.What)
		}
	}
	if got := strings.Join(kinds, ","); got != "state,email_queued,email_returned,edi,edit,state,import,process_state" {
		t.Fatalf("kinds %s", got)
	}
	if !strings.Contains(events[0].Detail, i18n.T("en", "tosend.no_connection")) || !strings.Contains(events[2].Detail, "5.1.1") {
		t.Fatalf("details %q %q", events[0].Detail, events[2].Detail)
	}
	if len(reasons) != 2 || strings.Join(reasons[0].Rules, ",") != "eSPap ERROR,PT-R-001,BR-CO-15,DT-CIUS-PT-098.3" || len(reasons[1].Rules) != 0 ||
		reasons[1].Text != "Falta a encomenda" {
		t.Fatalf("reasons %+v", reasons)
	}
}
