package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/ubl"
)

// Tenant isolation: opaque identifiers, public links bound to a party and a version, the issuer's
// e-mail records kept from the recipient, clean file names, links from the configured address only.

// isOpaque tells whether an identifier says nothing of how many came before it.
func isOpaque(v any) bool {
	s, ok := v.(string)
	_, err := strconv.ParseInt(strings.TrimPrefix(s, "evt_"), 10, 64)
	return ok && len(s) >= 16 && err != nil
}

func (e *docEnv) get(path string, as store.Entity) response {
	e.t.Helper()
	return e.do("GET", "/api/v1/en/apps"+path, e.as(as, ""), "")
}

func list(t *testing.T, r response) []map[string]any {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	items, _ := r.body["response"].(map[string]any)["data"].([]any)
	out := make([]map[string]any, len(items))
	for i, x := range items {
		out[i] = x.(map[string]any)
	}
	return out
}

func TestPublicIdentifiersAreOpaqueAndOfOneKind(t *testing.T) {
	env := newDocEnv(t)
	first := env.issue("FT P/1")
	r := env.post("/documents", env.entity, "application/json", invoiceJSON("FT P/2", env.customer.NIF,
		`, "send_by_email": 1, "files": [{"filename": "notas.txt", "content": "`+base64.StdEncoding.EncodeToString([]byte("notas"))+`"}]`))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	second := data(r)["id"].(string)
	if !isOpaque(first) || !isOpaque(second) || first == second {
		t.Fatalf("document ids %q and %q", first, second)
	}

	doc := data(env.get("/documents/"+second, env.entity))
	var fileID string
	for _, a := range doc["attachments"].([]any) {
		file, _, _ := strings.Cut(a.(map[string]any)["file"].(string), "?")
		if id := file[strings.LastIndexByte(file, '/')+1:]; a.(map[string]any)["identifier"] == "notas.txt" {
			fileID = id
		}
	}
	emails := doc["emails"].([]any)
	if !isOpaque(fileID) || len(emails) != 1 || !isOpaque(emails[0].(map[string]any)["id"]) {
		t.Fatalf("file id %q, e-mails %v", fileID, emails)
	}
	if got := env.get("/documents/"+second+"/files/"+fileID, env.entity); got.status != 200 || got.raw != "notas" {
		t.Fatalf("file: %d %s", got.status, got.raw)
	}
	for _, h := range list(t, env.get("/documents/"+second+"/history", env.entity)) {
		if !isOpaque(h["id"]) {
			t.Fatalf("history entry %v", h)
		}
		if d, ok := h["data"].(map[string]any); ok && h["kind"] == "email" && d["email_id"] != emails[0].(map[string]any)["id"] {
			t.Fatalf("e-mail entry %v names another e-mail than %v", h, emails[0])
		}
	}

	// Unknown, sequential, garbled and other kinds' identifiers are all unknown documents and files.
	garbled := []byte(second)
	garbled[len(garbled)-1] ^= 1 // another hex digit
	for _, path := range []string{"/documents/1", "/documents/" + string(garbled), "/documents/" + fileID,
		"/documents/" + second + "/files/" + second, "/documents/" + second + "/files/1"} {
		expectError(t, env.get(path, env.entity), 404, "e330")
	}

	// The states report names events and documents by their identifiers, and takes them back.
	events := list(t, env.get("/states-report/documents", env.entity))
	if len(events) != 2 || !isOpaque(events[0]["id"]) || events[0]["document_id"] != first || events[1]["document_id"] != second {
		t.Fatalf("events %v", events)
	}
	if only := list(t, env.get("/states-report/documents?document_id="+second, env.entity)); len(only) != 1 || only[0]["id"] != events[1]["id"] {
		t.Fatalf("filtered by document: %v", only)
	}
	if none := list(t, env.get("/states-report/documents?document_id=1", env.entity)); len(none) != 0 {
		t.Fatalf("a sequential document id matched %v", none)
	}
	expectError(t, env.post("/states-report/documents/read", env.entity, "application/json", `{"events": ["`+first+`"]}`), 400, "events:e339")
	expectError(t, env.post("/states-report/documents/read", env.entity, "application/json", `{"events": ["1"]}`), 400, "events:e339")
	if ok := env.post("/states-report/documents/read", env.entity, "application/json", `{"events": ["`+events[0]["id"].(string)+`"]}`); ok.status != 200 {
		t.Fatalf("read: %d %s", ok.status, ok.raw)
	}

	// Connections name themselves and their entities by identifiers too.
	conns := env.get("/external-connections", env.entity)
	resp := conns.body["response"].(map[string]any)["data"].([]any)
	conn := resp[0].(map[string]any)
	if !isOpaque(conn["id"]) || !isOpaque(conn["created_entity"].(map[string]any)["id"]) || !isOpaque(conn["receiver_entity"].(map[string]any)["id"]) {
		t.Fatalf("connection %v", conn)
	}
	if r := env.get("/external-connections/"+conn["id"].(string), env.entity); r.status != 200 {
		t.Fatalf("connection by id: %d %s", r.status, r.raw)
	}
	expectError(t, env.get("/external-connections/"+first, env.entity), 404, "e330")
	expectError(t, env.get("/external-connections/1", env.entity), 404, "e330")
}

// webhookBodies builds, as the webhook job does, the body of every due webhook event, by entity.
func (e *docEnv) webhookBodies() map[int64]map[string]any {
	e.t.Helper()
	ctx := context.Background()
	due := e.queued("webhook")
	out := map[int64]map[string]any{}
	for _, item := range due {
		var p webhookPayload
		json.Unmarshal(item.Payload, &p)
		raw, err := e.srv.webhookBody(ctx, item, p)
		if err != nil {
			e.t.Fatalf("webhook body: %v", err)
		}
		var b struct{ Data map[string]any }
		json.Unmarshal(raw, &b)
		out[item.EntityID] = b.Data
	}
	if err := e.st.RecordOutbox(ctx, doneAll(due)); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func doneAll(items []store.OutboxItem) []store.OutboxResult {
	out := make([]store.OutboxResult, len(items))
	for i, item := range items {
		out[i] = store.OutboxResult{ID: item.ID, Done: true}
	}
	return out
}

func (e *docEnv) fetchPublic(link string) response {
	e.t.Helper()
	return e.do("GET", strings.TrimPrefix(link, e.srv.baseURL()), nil, "")
}

func TestPublicLinksHoldForOneVersionOnePartyAndALimitedTime(t *testing.T) {
	env := newDocEnv(t, func(c *Config) { c.Auth.PublicLinkTTL = 24 * time.Hour })
	ctx := context.Background()
	other := env.mustEntity("Outro Cliente", "503504564")
	env.connect(env.entity, other, store.ConnApproved)
	env.authorize(other)
	for _, hook := range []store.Webhook{
		{EntityID: env.customer.ID, URL: "http://127.0.0.1:1/", Key: "k", Events: []string{eventReceived}},
		{EntityID: env.entity.ID, URL: "http://127.0.0.1:1/", Key: "k", Events: []string{eventStateChanged}},
		{EntityID: other.ID, URL: "http://127.0.0.1:1/", Key: "k", Events: []string{eventReceived}},
	} {
		if _, err := env.st.CreateWebhook(ctx, hook); err != nil {
			t.Fatal(err)
		}
	}
	id := env.issue("FT L/1")
	bodies := env.webhookBodies()
	customerXML, issuerPDF := bodies[env.customer.ID]["xml_url"].(string), bodies[env.entity.ID]["pdf_url"].(string)
	if !strings.HasPrefix(customerXML, env.srv.baseURL()+"/public/documents/"+id+"/xml?token=") {
		t.Fatalf("link %s", customerXML)
	}
	if r := env.fetchPublic(customerXML); r.status != 200 || !strings.Contains(r.raw, "FT L/1") {
		t.Fatalf("recipient's link: %d", r.status)
	}
	if r := env.fetchPublic(issuerPDF); r.status != 200 || !strings.HasPrefix(r.raw, "%PDF") {
		t.Fatalf("issuer's link: %d", r.status)
	}
	// A link is for one file: its token opens no other.
	expectError(t, env.fetchPublic(strings.Replace(customerXML, "/xml?", "/pdf?", 1)), 404, "e330")
	// A link made for an entity that is not a party opens nothing.
	d, _ := env.st.DocumentByID(ctx, env.rowID(store.KindDocument, id))
	expectError(t, env.fetchPublic(env.srv.publicFileURL(d, other.ID)("xml")), 404, "e330")

	// Links expire.
	realNow := env.srv.now
	env.srv.now = func() time.Time { return realNow().Add(25 * time.Hour) }
	expectError(t, env.fetchPublic(customerXML), 404, "e330")
	env.srv.now = realNow

	// The customer rejects it; the issuer corrects it and sends it to another customer. The first
	// customer's links, and the links of the version before, open nothing; the new customer's do.
	if r := env.post("/documents/"+id+"/accepted", env.customer, "application/json", `{"accepted": 0, "reason": "Não é nosso"}`); r.status != 200 {
		t.Fatalf("reject: %d %s", r.status, r.raw)
	}
	env.webhookBodies()
	if r := env.post("/documents", env.entity, "application/json", invoiceJSON("FT L/1", other.NIF, `, "notes": ["corrigido"]`)); r.status != 200 {
		t.Fatalf("edit: %d %s", r.status, r.raw)
	}
	expectError(t, env.fetchPublic(customerXML), 404, "e330")
	expectError(t, env.fetchPublic(issuerPDF), 404, "e330")
	expectError(t, env.get("/documents/"+id+"/xml", env.customer), 404, "e330")
	bodies = env.webhookBodies()
	if r := env.fetchPublic(bodies[other.ID]["xml_url"].(string)); r.status != 200 || !strings.Contains(r.raw, "corrigido") {
		t.Fatalf("new customer's link: %d", r.status)
	}
	if r := env.fetchPublic(bodies[env.entity.ID]["xml_url"].(string)); r.status != 200 {
		t.Fatalf("issuer's new link: %d", r.status)
	}
}

func TestAnEditCutsThePreviousRecipientOff(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	other := env.mustEntity("Outro Cliente", "503504564")
	env.connect(env.entity, other, store.ConnApproved)
	if _, err := env.st.CreateWebhook(ctx, store.Webhook{EntityID: env.customer.ID, URL: "http://127.0.0.1:1/", Key: "k", Events: []string{eventReceived}}); err != nil {
		t.Fatal(err)
	}
	id := env.issue("FT C/1")
	due := env.queued("webhook")
	before, _ := env.st.DocumentByID(ctx, env.rowID(store.KindDocument, id))
	env.post("/documents/"+id+"/accepted", env.customer, "application/json", `{"accepted": 0, "reason": "errado"}`)
	if r := env.post("/documents", env.entity, "application/json", invoiceJSON("FT C/1", other.NIF, "")); r.status != 200 {
		t.Fatalf("edit: %d %s", r.status, r.raw)
	}
	// The first customer's received event, still waiting, is not delivered with the new version.
	if len(due) != 1 {
		t.Fatalf("due %v", due)
	}
	var p webhookPayload
	json.Unmarshal(due[0].Payload, &p)
	if _, err := env.srv.webhookBody(ctx, due[0], p); !errors.Is(err, errNotAParty) {
		t.Fatalf("body for the previous recipient: %v", err)
	}
	if res := env.srv.deliverOne(ctx, due[0], &webhookCache{s: env.srv, byID: map[int64]*store.Webhook{}}); !res.Failed {
		t.Fatalf("delivery to the previous recipient: %+v", res)
	}
	// A file read for a version that is no longer the document's is not served.
	if _, err := env.srv.fileOf(ctx, before, "xml"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("file of a previous version: %v", err)
	}
}

func TestTheRecipientSeesNoneOfTheIssuersEmails(t *testing.T) {
	env := newDocEnv(t)
	r := env.post("/documents", env.entity, "application/json", invoiceJSON("FT E/1", env.customer.NIF,
		`, "send_by_email": 1, "additional_emails": ["copia.interna@fornecedor.example"]`))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := data(r)["id"].(string)

	recipient := env.get("/documents/"+id+"/history", env.customer)
	for _, h := range list(t, recipient) {
		if h["kind"] == "email" {
			t.Fatalf("the recipient sees the issuer's e-mail entry %v", h)
		}
	}
	if strings.Contains(recipient.raw, "copia.interna") || strings.Contains(recipient.raw, "@") {
		t.Fatalf("the recipient's history names an address: %s", recipient.raw)
	}
	if view := env.get("/documents/"+id, env.customer); strings.Contains(view.raw, "copia.interna") || len(data(view)["emails"].([]any)) != 0 {
		t.Fatalf("the recipient's view shows the issuer's e-mails: %s", view.raw)
	}

	// The issuer still sees every one of its e-mails, with the addresses.
	issuer := env.get("/documents/"+id+"/history", env.entity)
	n := 0
	for _, h := range list(t, issuer) {
		if h["kind"] == "email" {
			n++
		}
	}
	if n != 2 || !strings.Contains(issuer.raw, "copia.interna@fornecedor.example") || len(data(env.get("/documents/"+id, env.entity))["emails"].([]any)) != 2 {
		t.Fatalf("issuer's history: %s", issuer.raw)
	}
}

// xmlWithAttachment is a valid invoice to the env's customer embedding one file under the given name.
func xmlWithAttachment(t *testing.T, env *docEnv, number, filename string) []byte {
	t.Helper()
	var in documentData
	if err := decodeInto([]byte(invoiceJSON(number, env.customer.NIF, "")), &in); err != nil {
		t.Fatal(err)
	}
	m, err := buildDocument(&in, env.entity)
	if err != nil {
		t.Fatal(err)
	}
	m.Attachments = append(m.Attachments, ubl.Attachment{ID: number + "-1", Description: "ATTACHMENT", MIMEType: "text/csv",
		Filename: filename, Content: base64.StdEncoding.EncodeToString([]byte("a;b\n"))})
	xml, err := ubl.Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	return xml
}

func dispositionName(t *testing.T, r response) string {
	t.Helper()
	_, params, err := mime.ParseMediaType(r.header.Get("Content-Disposition"))
	if r.status != 200 || err != nil {
		t.Fatalf("download: %d %q %v", r.status, r.header.Get("Content-Disposition"), err)
	}
	return params["filename"]
}

func TestEmbeddedFileNamesAreCleaned(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	if _, err := env.st.CreateWebhook(ctx, store.Webhook{EntityID: env.customer.ID, URL: "http://127.0.0.1:1/", Key: "k", Events: []string{eventReceived}}); err != nil {
		t.Fatal(err)
	}
	r := env.post("/documentsUBL", env.entity, "application/xml", string(xmlWithAttachment(t, env, "FT N/1", "../../../../etc/cron.d/evil.csv")))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := data(r)["id"].(string)
	attachment := func(doc map[string]any, name string) map[string]any {
		for _, a := range doc["attachments"].([]any) {
			if a := a.(map[string]any); a["mime_type"] == "text/csv" {
				if a["identifier"] != name || a["ubl_type"] != "attachment" {
					t.Fatalf("attachment %v", a)
				}
				return a
			}
		}
		t.Fatalf("no attachment in %v", doc["attachments"])
		return nil
	}
	a := attachment(data(env.get("/documents/"+id, env.customer)), "evil.csv")
	if got := dispositionName(t, env.do("GET", strings.TrimPrefix(a["file"].(string), env.srv.baseURL()), env.as(env.customer, ""), "")); got != "evil.csv" {
		t.Fatalf("download name %q", got)
	}
	hook := attachment(env.webhookBodies()[env.customer.ID], "evil.csv")
	if got := dispositionName(t, env.fetchPublic(hook["file"].(string))); got != "evil.csv" {
		t.Fatalf("public download name %q", got)
	}

	// A file stored under such a name before is cleaned on its way out.
	docID := env.rowID(store.KindDocument, id)
	err := env.st.Update(ctx, func(tx *store.Tx) error {
		return tx.AddFile(store.File{DocumentID: docID, Role: store.FileAttachment, Name: `..\..\windows\evil.csv`, MIME: "text/csv", Content: []byte("x")})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range data(env.get("/documents/"+id, env.customer))["attachments"].([]any) {
		a := a.(map[string]any)
		if name := a["identifier"].(string); strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
			t.Fatalf("attachment name %q", name)
		}
		if got := dispositionName(t, env.do("GET", strings.TrimPrefix(a["file"].(string), env.srv.baseURL()), env.as(env.customer, ""), "")); got != a["identifier"] {
			t.Fatalf("download name %q, listed %q", got, a["identifier"])
		}
	}
}

func TestCleanFileName(t *testing.T) {
	long := strings.Repeat("a", 80) + ".pdf"
	cases := []struct{ name, mime, want string }{
		{"../../../../etc/cron.d/evil.csv", "text/csv", "evil.csv"},
		{`..\..\evil.CSV`, "text/csv", "evil.csv"},
		{"relatório final.pdf", "application/pdf", "relat_rio_final.pdf"},
		{"..", "text/plain", "document.txt"},
		{"notas", "text/plain", "notas.txt"},
		{"x.c$v", "text/csv", "x.c_v.csv"},
		{"data.bin", "application/octet-stream", "data.bin"},
		{"a\r\nContent-Type: text-html.pdf", "application/pdf", "a_Content-Type_text-html.pdf"},
		{long, "application/pdf", strings.Repeat("a", 46) + ".pdf"},
	}
	for _, c := range cases {
		got := cleanFileName(c.name, c.mime)
		if got != c.want {
			t.Errorf("cleanFileName(%q) = %q, want %q", c.name, got, c.want)
		}
		if again := cleanFileName(got, c.mime); again != got {
			t.Errorf("cleaning %q again gives %q", got, again)
		}
	}
}

func TestLinksNeverComeFromTheHostHeader(t *testing.T) {
	check := func(t *testing.T, env *docEnv, base string) {
		t.Helper()
		id := env.issue("FT H/1")
		env.issue("FT H/2")
		spoofed := func(path string, as store.Entity) response {
			return env.do("GET", "http://evil.example/api/v1/en/apps"+path, env.as(as, ""), "")
		}
		doc := spoofed("/documents/"+id, env.entity)
		inbox := spoofed("/documents?rows=1", env.customer)
		report := spoofed("/states-report/documents?rows=1", env.entity)
		for _, r := range []response{doc, inbox, report} {
			if r.status != 200 || strings.Contains(r.raw, "evil.example") {
				t.Fatalf("%d %s", r.status, r.raw)
			}
		}
		if u := data(doc)["xml_url"].(string); u != base+"/api/v1/en/apps/documents/"+id+"/xml" {
			t.Fatalf("xml_url %s", u)
		}
		if u := list(t, inbox)[0]["pdf_url"].(string); !strings.HasPrefix(u, base+"/api/v1/en/apps/documents/") {
			t.Fatalf("pdf_url %s", u)
		}
		for _, r := range []response{inbox, report} {
			if next, _ := r.body["response"].(map[string]any)["next_page_url"].(string); !strings.HasPrefix(next, base+"/api/v1/en/apps/") {
				t.Fatalf("next_page_url %q", next)
			}
		}
	}
	t.Run("public_url", func(t *testing.T) {
		check(t, newDocEnv(t, func(c *Config) { c.HTTP.PublicURL = "https://faturas.example/" }), "https://faturas.example")
	})
	t.Run("listen address", func(t *testing.T) {
		env := newDocEnv(t)
		addr := "[::]:8443"
		env.srv.listenAddr.Store(&addr)
		check(t, env, "http://127.0.0.1:8443")
	})
}
