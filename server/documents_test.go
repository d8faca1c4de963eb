package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"einvoice/store"
	"einvoice/ubl"
)

// docEnv is a service with an issuer (the env's entity), a customer entity with an approved connection,
// and a bearer for each.
type docEnv struct {
	*testEnv
	customer store.Entity
	bearer   string // the platform token, authorised (with handshake) for every entity created here
}

func newDocEnv(t *testing.T, tweak ...func(*Config)) *docEnv {
	tweak = append([]func(*Config){func(c *Config) { c.HTTP.BodyLimit = 32 << 20 }}, tweak...)
	env := &docEnv{testEnv: newTestEnv(t, tweak...)}
	env.customer = env.mustEntity("Cliente Publico", "500000000")
	env.connect(env.entity, env.customer, store.ConnApproved)
	env.bearer = env.token
	for _, e := range []store.Entity{env.entity, env.customer} {
		env.authorize(e)
	}
	return env
}

// authorize lets the platform token act for an entity.
func (e *docEnv) authorize(ent store.Entity) {
	e.t.Helper()
	ctx := context.Background()
	if err := e.st.Authorize(ctx, e.tokenID, ent.ID); err != nil { // authorising twice is not an error
		e.t.Fatal(err)
	}
	if err := e.st.SetHandshake(ctx, e.tokenID, ent.ID, true); err != nil {
		e.t.Fatal(err)
	}
}

func (e *docEnv) connect(a, b store.Entity, state string) {
	e.t.Helper()
	if _, err := e.st.CreateConnection(context.Background(), store.NewConnection{FromEntityID: a.ID, ToEntityID: b.ID, State: state}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *docEnv) as(ent store.Entity, contentType string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + e.bearer, "entity": ent.PublicKey}
	if contentType != "" {
		h["Content-Type"] = contentType
	}
	return h
}

// invoiceJSON is a structured-data invoice to the customer with tax ID nif.
func invoiceJSON(number, nif string, extra string) string {
	return fmt.Sprintf(`{
		"number": %q, "emission_date": "2026-11-20", "due_date": "2026-12-20", "type_document_fact": "FT",
		"commitment_number": "CO-2026/17",
		"supplier": {"street": "Rua das Flores 10", "city": "Lisboa", "postal_zone": "1200-195", "company_legal_form": "Capital social 5000 EUR"},
		"customer": {"number": %q, "name": "Cliente Publico", "street": "Avenida da Liberdade 1", "city": "Porto",
			"postal_zone": "4000-001", "country_code": "PT", "email": "compras@cliente.example"},
		"lines": [
			{"name": "Caderno", "quantity": "2.000", "price": "10.00", "amount": "15.00", "unit": "C62",
			 "discounts_charges": [{"type": "false", "reason": "Desconto comercial", "amount": "5.00"}],
			 "taxes": [{"tax_percent": "23.00", "tax_amount": "3.45"}]},
			{"name": "Servico isento", "quantity": 1, "price": 40,
			 "taxes": [{"tax_percent": 0, "tax_code": "ISE", "tax_exemption_reason_code": "M07", "tax_exemption_reason": "Isento artigo 9.º do CIVA"}]}
		]%s
	}`, number, nif, extra)
}

func (e *docEnv) post(path string, ent store.Entity, contentType, body string) response {
	e.t.Helper()
	return e.do("POST", "/api/v1/en/apps"+path, e.as(ent, contentType), body)
}

func data(r response) map[string]any {
	resp, _ := r.body["response"].(map[string]any)
	d, _ := resp["data"].(map[string]any)
	return d
}

func alias(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["alias"].(string)
	return s
}

func TestCreateByDataDeliversToAConnectedEntity(t *testing.T) {
	env := newDocEnv(t)
	r := env.post("/documents", env.entity, "application/json", invoiceJSON("FT 2026/1", "500000000", ""))
	if r.status != 201 || r.body["message"].(map[string]any)["code"] != "s011" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	d := data(r)
	if alias(d["state_document"]) != "sent" || d["number"] != "FT 2026/1" || d["emission_date"] != "2026-11-20" ||
		alias(d["type_document_fact"]) != "invoice" || alias(d["type_document"]) != "issued" || d["to_send_status"] != nil {
		t.Fatalf("summary %v", d)
	}
	id := d["id"].(string)

	got := env.do("GET", "/api/v1/en/apps/documents/"+id, env.as(env.entity, ""), "")
	doc := data(got)
	amounts := doc["amounts"].(map[string]any)
	if got.status != 200 || amounts["amount"] != "55.00" || amounts["tax_amount"] != "3.45" || amounts["payable_amount"] != "58.45" ||
		alias(doc["state_edi_document"]) != "delivered" || len(doc["lines"].([]any)) != 2 || doc["commitment_number"] != "CO-2026/17" {
		t.Fatalf("document: %d %s", got.status, got.raw)
	}
	// The XML the service generated is there, and it passes the validator.
	xmlURL := doc["xml_url"].(string)
	x := env.do("GET", strings.TrimPrefix(xmlURL, env.srv.baseURL()), env.as(env.entity, ""), "")
	if x.status != 200 || !strings.Contains(x.raw, "<cbc:ID>FT 2026/1</cbc:ID>") {
		t.Fatalf("xml: %d %.200s", x.status, x.raw)
	}
	if res := ubl.Validate([]byte(x.raw), ubl.Auto, "en"); res.Rejected() {
		t.Fatalf("generated XML refused: %v", res.Fatal)
	}

	// The recipient sees it as received; a third entity does not see it at all.
	asCustomer := env.do("GET", "/api/v1/en/apps/documents/"+id, env.as(env.customer, ""), "")
	if asCustomer.status != 200 || alias(data(asCustomer)["type_document"]) != "received" {
		t.Fatalf("recipient: %d %s", asCustomer.status, asCustomer.raw)
	}
	stranger := env.mustEntity("Outra", "503504564")
	env.authorize(stranger)
	for _, path := range []string{"", "/history", "/xml", "/pdf"} {
		expectError(t, env.do("GET", "/api/v1/en/apps/documents/"+id+path, env.as(stranger, ""), ""), 404, "e330")
	}
	expectError(t, env.do("GET", "/api/v1/en/apps/documents/999999", env.as(env.entity, ""), ""), 404, "e330")
}

func TestCreateByUBLMultipartAndRawBody(t *testing.T) {
	env := newDocEnv(t)
	xml := buildXML(t, env, "FT 2026/7", "500000000")
	body, ct := multipartBody(t, map[string]string{"send_by_email": "1", "additional_emails[]": "contabilidade@cliente.example"},
		map[string][]byte{"document": xml})
	r := env.post("/documentsUBL", env.entity, ct, body)
	if r.status != 201 || alias(data(r)["state_document"]) != "sent" {
		t.Fatalf("multipart: %d %s", r.status, r.raw)
	}
	stored, _ := env.st.DocumentByID(context.Background(), env.rowID(store.KindDocument, data(r)["id"]))
	if !stored.SendByEmail || len(stored.EmailAddresses) != 2 {
		t.Fatalf("e-mail addresses %v", stored.EmailAddresses)
	}

	raw := env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "FT 2026/8", "500000000")))
	if raw.status != 201 {
		t.Fatalf("raw body: %d %s", raw.status, raw.raw)
	}
	expectError(t, env.post("/documentsUBL", env.entity, "text/plain", "x"), 415, "e333")
	empty, ct := multipartBody(t, map[string]string{"send_by_email": "0"}, nil)
	expectError(t, env.post("/documentsUBL", env.entity, ct, empty), 400, "document:e301")
}

// buildXML makes a valid CIUS-PT invoice from the issuer to nif through the data method's builder.
func buildXML(t *testing.T, env *docEnv, number, nif string) []byte {
	t.Helper()
	var in documentData
	if err := decodeInto([]byte(invoiceJSON(number, nif, "")), &in); err != nil {
		t.Fatal(err)
	}
	m, err := buildDocument(&in, env.entity)
	if err != nil {
		t.Fatal(err)
	}
	xml, err := ubl.Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	return xml
}

func multipartBody(t *testing.T, fields map[string]string, files map[string][]byte) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	for name, content := range files {
		fname := name + ".xml"
		if bytes.HasPrefix(content, []byte("%PDF")) {
			fname = name + ".pdf"
		}
		fw, _ := w.CreateFormFile(name, fname)
		fw.Write(content)
	}
	w.Close()
	return buf.String(), w.FormDataContentType()
}

// rowID is the row id behind a public identifier the API answered with.
func (e *testEnv) rowID(kind store.IDKind, public any) int64 {
	e.t.Helper()
	id, err := e.st.ParsePublicID(kind, public.(string))
	if err != nil {
		e.t.Fatalf("%v is not a public id of kind %d", public, kind)
	}
	return id
}

func TestCreationRefusals(t *testing.T) {
	env := newDocEnv(t)
	other := env.mustEntity("Outro Fornecedor", "503504564")
	env.authorize(other)

	// Not valid: the rule id leads the message and every finding is in details.
	bad := strings.Replace(string(buildXML(t, env, "FT 2026/9", "500000000")), `<cbc:PayableAmount currencyID="EUR">58.45`, `<cbc:PayableAmount currencyID="EUR">99.45`, 1)
	r := env.post("/documentsUBL", env.entity, "application/xml", bad)
	expectError(t, r, 400, "document:e217")
	item := r.body["errors"].(map[string]any)["document"].(map[string]any)
	if msg := item["msg"].(string); !strings.HasPrefix(msg, "[DT-CIUS-PT-166]-") && !strings.HasPrefix(msg, "[BR-CO-16]-") {
		t.Fatalf("message %q", msg)
	}
	if details, _ := item["details"].([]any); len(details) == 0 {
		t.Fatalf("no details: %s", r.raw)
	}
	expectError(t, env.post("/documentsUBL", env.entity, "application/xml", "<Invoice"), 400, "document:e217")

	// The acting entity is not the supplier.
	expectError(t, env.post("/documentsUBL", other, "application/xml", string(buildXML(t, env, "FT 2026/10", "500000000"))), 400, "supplier:e199")

	// Structured data: each problem keyed by its field.
	cases := []struct{ name, body, code string }{
		{"missing number", strings.Replace(invoiceJSON("", "500000000", ""), `"number": ""`, `"number": ""`, 1), "number:e301"},
		{"bad quantity", strings.Replace(invoiceJSON("X1", "500000000", ""), `"quantity": "2.000"`, `"quantity": "two"`, 1), "lines[0][quantity]:e302"},
		{"wrong line amount", strings.Replace(invoiceJSON("X2", "500000000", ""), `"amount": "15.00"`, `"amount": "16.00"`, 1), "lines[0][amount]:e338"},
		{"unknown field", invoiceJSON("X3", "500000000", `, "colour": "blue"`), "colour:e337"},
		{"order by data", strings.Replace(invoiceJSON("X4", "500000000", ""), `"FT"`, `"220"`, 1), "type_document_fact:e302"},
		{"exempt without reason", strings.Replace(invoiceJSON("X5", "500000000", ""), `"tax_exemption_reason_code": "M07", `, ``, 1), "lines[1][taxes][0][tax_exemption_reason_code]:e301"},
		{"bad e-mail", invoiceJSON("X6", "500000000", `, "send_by_email": 1, "additional_emails": ["not an address"]`), "additional_emails[0]:e302"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectError(t, env.post("/documents", env.entity, "application/json", c.body), 400, c.code)
		})
	}
}

func TestNaturalKeyEditsOrRefuses(t *testing.T) {
	env := newDocEnv(t)
	unconnected := env.mustEntity("Sem Ligacao", "503504564")

	first := env.post("/documents", env.entity, "application/json", invoiceJSON("FT 2026/20", unconnected.NIF, ""))
	if first.status != 201 || alias(data(first)["state_document"]) != "tosend" || data(first)["to_send_status"].(map[string]any)["code"] != "no_connection" {
		t.Fatalf("first: %d %s", first.status, first.raw)
	}
	// Still to send: the same number, type and date edit it.
	edit := env.post("/documents", env.entity, "application/json", invoiceJSON("FT 2026/20", unconnected.NIF, `, "notes": ["corrigido"]`))
	if edit.status != 200 || edit.body["message"].(map[string]any)["code"] != "s012" || data(edit)["id"] != data(first)["id"] {
		t.Fatalf("edit: %d %s", edit.status, edit.raw)
	}
	// Once connected, an edit delivers it; after that it can no longer be edited.
	env.connect(env.entity, unconnected, store.ConnApproved)
	resend := env.post("/documents", env.entity, "application/json", invoiceJSON("FT 2026/20", unconnected.NIF, ""))
	if resend.status != 200 || alias(data(resend)["state_document"]) != "sent" {
		t.Fatalf("resend: %d %s", resend.status, resend.raw)
	}
	expectError(t, env.post("/documents", env.entity, "application/json", invoiceJSON("FT 2026/20", unconnected.NIF, "")), 400, "number:e200")

	h := env.do("GET", "/api/v1/en/apps/documents/"+data(first)["id"].(string)+"/history", env.as(env.entity, ""), "")
	var kinds []string
	for _, e := range h.body["response"].(map[string]any)["data"].([]any) {
		kinds = append(kinds, e.(map[string]any)["kind"].(string))
	}
	if got := strings.Join(kinds, ","); got != "state,edit,edit,state" {
		t.Fatalf("history kinds %s: %s", got, h.raw)
	}
}

func TestRoutingReasonsAndTransactions(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	pending := env.mustEntity("Pendente", "503504564")
	env.connect(pending, env.entity, store.ConnPending)
	paying := env.mustEntity("Pagante", "501442600")
	env.connect(env.entity, paying, store.ConnApproved)
	yes := true
	zero := int64(0)
	env.st.UpdateEntity(ctx, paying.ID, store.EntityChanges{PaysReceived: &yes, Transactions: &zero})

	cases := []struct{ number, nif, state, reason string }{
		{"R1", pending.NIF, "tosend", "sent_connection"},
		{"R2", "999999990", "tosend", "registered_entity"},
		{"R3", paying.NIF, "tosend", "received_pay_transactions"},
	}
	for _, c := range cases {
		r := env.post("/documents", env.entity, "application/json", invoiceJSON(c.number, c.nif, ""))
		if r.status != 201 || alias(data(r)["state_document"]) != c.state || data(r)["to_send_status"].(map[string]any)["code"] != c.reason {
			t.Fatalf("%s: %d %s", c.number, r.status, r.raw)
		}
	}
	two := int64(2)
	env.st.UpdateEntity(ctx, paying.ID, store.EntityChanges{Transactions: &two})
	r := env.post("/documents", env.entity, "application/json", invoiceJSON("R4", paying.NIF, ""))
	if r.status != 201 || alias(data(r)["state_document"]) != "sent" {
		t.Fatalf("paid delivery: %d %s", r.status, r.raw)
	}
	if p, _ := env.st.EntityByID(ctx, paying.ID); p.Transactions != 1 {
		t.Fatalf("recipient balance %d, want 1", p.Transactions)
	}
}

// formFields flattens a JSON document into bracket-notation form fields.
func formFields(t *testing.T, body string) map[string]string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				walk(prefix+"["+k+"]", val)
			}
		case []any:
			for i, val := range x {
				walk(fmt.Sprintf("%s[%d]", prefix, i), val)
			}
		default:
			out[prefix] = fmt.Sprint(x)
		}
	}
	for k, val := range v {
		walk(k, val)
	}
	return out
}

func TestMultipartBracketNotationWithPDFAndAttachments(t *testing.T) {
	env := newDocEnv(t)
	fields := formFields(t, invoiceJSON("FT 2026/30", env.customer.NIF, ""))
	fields["payment_terms[note]"] = "30 dias"
	fields["withholding_tax[0][type]"] = "IRF"
	fields["withholding_tax[0][tax_amount]"] = "10.00"
	fields["withholding_tax[0][description]"] = "Retenção IRS"
	fields["qr_code"] = "A:508025338*B:500000000*C:PT*D:FT*E:N*F:20261120"
	fields["atcud"] = "AFHOFX-22"
	pdf := []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")
	csv := []byte("linha;valor\n1;10\n")
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	fw, _ := w.CreateFormFile("file", "fatura.pdf")
	fw.Write(pdf)
	fw, _ = w.CreateFormFile("files[]", "guia.csv")
	fw.Write(csv)
	w.Close()
	r := env.post("/documents", env.entity, w.FormDataContentType(), buf.String())
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := data(r)["id"].(string)
	doc := data(env.do("GET", "/api/v1/en/apps/documents/"+id, env.as(env.entity, ""), ""))
	if doc["pdf_url"] == nil || doc["atcud"] != "AFHOFX-22" || len(doc["withholding_tax"].([]any)) != 1 || len(doc["attachments"].([]any)) != 4 {
		t.Fatalf("document: %v", doc)
	}
	got := env.do("GET", "/api/v1/en/apps/documents/"+id+"/pdf", env.as(env.customer, ""), "")
	if got.status != 200 || got.raw != string(pdf) || got.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("pdf: %d %q", got.status, got.raw)
	}
	// A visual PDF that is not a PDF is refused.
	body, ct := multipartBody(t, formFields(t, invoiceJSON("FT 2026/31", env.customer.NIF, "")), map[string][]byte{"file": csv})
	expectError(t, env.post("/documents", env.entity, ct, body), 400, "file:e343")
}

func TestRecipientRules(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	for _, rule := range RecipientRuleNames {
		if err := env.st.SetRecipientRule(ctx, env.customer.ID, rule, true); err != nil {
			t.Fatal(err)
		}
	}
	noCommitment := strings.Replace(invoiceJSON("RR1", env.customer.NIF, ""), `"commitment_number": "CO-2026/17",`, "", 1)
	r := env.post("/documents", env.entity, "application/json", noCommitment)
	codes := strings.Join(sortedCodes(t, r), " ")
	if r.status != 400 || codes != "commitment_number:e048 order_reference:e050" {
		t.Fatalf("rules: %d %s", r.status, r.raw) // the PDF the service renders is attached
	}
	// An XML with no PDF embedded lacks the attachment.
	r = env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "RR0", env.customer.NIF)))
	if codes := strings.Join(sortedCodes(t, r), " "); r.status != 400 || codes != "file:e049 order_reference:e050" {
		t.Fatalf("rules, XML method: %d %s", r.status, r.raw)
	}
	fields := formFields(t, invoiceJSON("RR2", env.customer.NIF, `, "references": [{"document_type": "order", "number": "ENC-9"}]`))
	body, ct := multipartBody(t, fields, map[string][]byte{"file": []byte("%PDF-1.4\n%%EOF\n")})
	if r := env.post("/documents", env.entity, ct, body); r.status != 201 {
		t.Fatalf("with required fields: %d %s", r.status, r.raw)
	}
	// Rules of a recipient that is not an entity here do not apply.
	elsewhere := strings.Replace(strings.Replace(noCommitment, "RR1", "RR3", 1), env.customer.NIF, "999999990", 1)
	if r := env.post("/documents", env.entity, "application/json", elsewhere); r.status != 201 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
}

func sortedCodes(t *testing.T, r response) []string {
	codes := errorCodes(t, r)
	for i := range codes {
		for j := i + 1; j < len(codes); j++ {
			if codes[j] < codes[i] {
				codes[i], codes[j] = codes[j], codes[i]
			}
		}
	}
	return codes
}

func TestTestModeLimitsIssuers(t *testing.T) {
	env := newDocEnv(t, func(c *Config) { c.Environment.Mode = "test" })
	ctx := context.Background()
	expectError(t, env.post("/documents", env.entity, "application/json", invoiceJSON("T1", env.customer.NIF, "")), 400, "supplier:e340")
	yes := true
	for _, e := range []store.Entity{env.entity, env.customer} {
		env.st.UpdateEntity(ctx, e.ID, store.EntityChanges{TestEntity: &yes})
	}
	env.entity, _ = env.st.EntityByID(ctx, env.entity.ID)
	if r := env.post("/documents", env.entity, "application/json", invoiceJSON("T2", env.customer.NIF, "")); r.status != 201 {
		t.Fatalf("between test entities: %d %s", r.status, r.raw)
	}
	expectError(t, env.post("/documents", env.entity, "application/json", invoiceJSON("T3", "123456789", "")), 400, "customer:e341")
	if r := env.post("/documents", env.entity, "application/json", invoiceJSON("T4", "123456789", `, "send_by_email": "1"`)); r.status != 201 {
		t.Fatalf("by e-mail to a consumer: %d %s", r.status, r.raw)
	}
}

func TestStatesReportAndRead(t *testing.T) {
	env := newDocEnv(t)
	for _, n := range []string{"S1", "S2"} {
		if r := env.post("/documents", env.entity, "application/json", invoiceJSON(n, env.customer.NIF, "")); r.status != 201 {
			t.Fatal(r.raw)
		}
	}
	report := env.do("GET", "/api/v1/en/apps/states-report/documents?number=S2", env.as(env.entity, ""), "")
	events := report.body["response"].(map[string]any)["data"].([]any)
	if report.status != 200 || len(events) != 1 || alias(events[0].(map[string]any)["state_document"]) != "sent" {
		t.Fatalf("report: %d %s", report.status, report.raw)
	}
	all := env.do("GET", "/api/v1/en/apps/states-report/documents", env.as(env.entity, ""), "")
	if all.body["response"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("all: %s", all.raw)
	}
	id := events[0].(map[string]any)["id"].(string)
	// The customer cannot mark the issuer's events, and learns nothing from trying.
	expectError(t, env.post("/states-report/documents/read", env.customer, "application/json", `{"events": ["`+id+`"]}`), 400, "events:e339")
	ok := env.post("/states-report/documents/read", env.entity, "application/x-www-form-urlencoded", "events[]="+id)
	if ok.status != 200 || ok.body["message"].(map[string]any)["code"] != "s302" {
		t.Fatalf("read: %d %s", ok.status, ok.raw)
	}
	after := env.do("GET", "/api/v1/en/apps/states-report/documents", env.as(env.entity, ""), "")
	if after.body["response"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("after read: %s", after.raw)
	}
	expectError(t, env.post("/states-report/documents/read", env.entity, "application/json", `{"events": ["`+id+`"]}`), 400, "events:e339")
	expectError(t, env.do("GET", "/api/v1/en/apps/states-report/documents?created_at_start=yesterday", env.as(env.entity, ""), ""), 400, "created_at_start:e302")
}

// Identical requests at the same moment create one document.
func TestConcurrentIdenticalRequestsCreateOneDocument(t *testing.T) {
	env := newDocEnv(t)
	body := invoiceJSON("C1", "999999990", "")
	var wg sync.WaitGroup
	statuses := make(chan int, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("POST", "/api/v1/en/apps/documents", strings.NewReader(body))
			for k, v := range env.as(env.entity, "application/json") {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			env.srv.Handler().ServeHTTP(rec, req)
			statuses <- rec.Code
		}()
	}
	wg.Wait()
	close(statuses)
	created := 0
	for s := range statuses {
		switch s {
		case 201:
			created++
		case 200:
		default:
			t.Fatalf("status %d", s)
		}
	}
	var n int
	env.st.Update(context.Background(), func(tx *store.Tx) error {
		_, err := tx.DocumentByKey(env.entity.ID, "C1", "FT", "2026-11-20")
		if err == nil {
			n = 1
		}
		return err
	})
	if created != 1 || n != 1 {
		t.Fatalf("%d created", created)
	}
}

func TestIncumbentUseCasesValidate(t *testing.T) {
	env := newDocEnv(t)
	cases := map[string]string{
		"price discount": `, "lines": [{"name": "A", "quantity": "2.000", "price": "5.00000000", "amount": "10.00000000",
			"price_discount": {"base_amount": "10.00", "amount": "5.00"}, "taxes": [{"tax_percent": "23.000", "tax_amount": "2.30"}]}]`,
		"header discount": `, "discount_amount": "8.13", "discounts_charges": [{"type": "false", "reason": "commercial discount",
			"percent": "23.00", "tax_code": "NOR", "amount": "8.13"}]`,
		"exempt header charge": `, "discounts_charges": [{"type": "true", "reason": "Portes", "percent": "0.00", "tax_code": "ISE",
			"amount": "10.00", "tax_exemption_reason_code": "M07", "tax_exemption_reason": "Isento"}]`,
		"payment means": `, "payment_means": {"code": "TB", "iban": "PT50000201231234567890154", "bic": "CGDIPTPL"},
			"payment_terms": {"note": "30 dias"}`,
		"atm reference": `, "payment_means": {"code": "MB", "atm_payment_entity": "12345", "atm_payment_reference": "123456789", "atm_payment_value": "58.45"}`,
		"line commitment and property": `, "lines": [{"name": "Energia", "quantity": 1, "price": 100, "taxes": [{"tax_percent": 23}],
			"commitment": {"number": "2021/123", "line": "1"}, "additional_property": [{"name": "CPE", "value": "PT1234567890"}]}]`,
		"credit note": `, "type_document_fact": "NC", "references": [{"document_type": "invoice", "number": "FT 2026/1", "date": "2026-11-01"}]`,
	}
	i := 0
	for name, extra := range cases {
		i++
		t.Run(name, func(t *testing.T) {
			body := invoiceJSON(fmt.Sprintf("UC%d", i), env.customer.NIF, "")
			var v map[string]any
			json.Unmarshal([]byte(body), &v)
			var add map[string]any
			if err := json.Unmarshal([]byte("{"+strings.TrimPrefix(extra, ",")+"}"), &add); err != nil {
				t.Fatal(err)
			}
			for k, val := range add {
				v[k] = val
			}
			out, _ := json.Marshal(v)
			r := env.post("/documents", env.entity, "application/json", string(out))
			if r.status != 201 {
				t.Fatalf("%d %s", r.status, r.raw)
			}
		})
	}
}
