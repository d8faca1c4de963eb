package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/store"
)

// fieldCode is the code a refusal gives a field ("" when there is none).
func fieldCode(err error, field string) string {
	if c := FieldCodes(err)[field]; c != nil {
		return c.ID
	}
	return ""
}

var demoSupplierProfile = store.Profile{Street: "Rua Augusta", BuildingNumber: "100", PostalZone: "1100-053", City: "Lisboa",
	Country: "PT", ShareCapital: "5.000,00 EUR", LegalForm: "Sociedade por quotas", Email: "faturacao@fornecedor.example",
	Telephone: "+351 210 000 100", IBAN: "PT50 0002 0123 1234 5678 9015 4", GLN: "5601234000016"}

// The data method takes the supplier's address and details from the company profile when the request
// leaves them out; what the request sends wins.
func TestProfileDefaultsTheDataMethodSupplier(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	noSupplier := strings.Replace(invoiceJSON("FT P/1", env.customer.NIF, `, "payment_means": {"code": "30"}`),
		`"supplier": {"street": "Rua das Flores 10", "city": "Lisboa", "postal_zone": "1200-195", "company_legal_form": "Capital social 5000 EUR"},`, "", 1)
	if strings.Contains(noSupplier, "supplier") {
		t.Fatal("the payload still has a supplier")
	}
	if r := env.post("/documents", env.entity, "application/json", noSupplier); r.status != 400 {
		t.Fatalf("without a profile the official rules refuse it: %d %s", r.status, r.raw)
	}
	if _, err := env.srv.UpdateProfile(ctx, env.entity.ID, "Fornecedor, Lda.", demoSupplierProfile); err != nil {
		t.Fatal(err)
	}
	r := env.post("/documents", env.entity, "application/json", noSupplier)
	if r.status != 201 {
		t.Fatalf("with the profile: %d %s", r.status, r.raw)
	}
	d, _ := env.st.DocumentByID(ctx, mustParseDocument(t, env, data(r)["id"].(string)))
	xml, err := env.st.DocumentFileByRole(ctx, d.ID, store.FileXML)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<cbc:StreetName>Rua Augusta</cbc:StreetName>", "<cbc:PostalZone>1100-053</cbc:PostalZone>",
		"Sociedade por quotas, 5.000,00 EUR", `schemeID="0088">5601234000016`, "PT50000201231234567890154", "Fornecedor, Lda."} {
		if !strings.Contains(string(xml.Content), want) {
			t.Errorf("the XML lacks %s", want)
		}
	}
	// A supplier field the request sends is kept.
	withStreet := strings.Replace(noSupplier, `"customer":`, `"supplier": {"street": "Rua Nova"}, "customer":`, 1)
	r = env.post("/documents", env.entity, "application/json", strings.Replace(withStreet, "FT P/1", "FT P/2", 1))
	xml, _ = env.st.DocumentFileByRole(ctx, mustParseDocument(t, env, data(r)["id"].(string)), store.FileXML)
	if r.status != 201 || !strings.Contains(string(xml.Content), "<cbc:StreetName>Rua Nova</cbc:StreetName>") {
		t.Fatalf("the request's street: %d %s", r.status, r.raw)
	}
}

func mustParseDocument(t *testing.T, env *docEnv, public string) int64 {
	t.Helper()
	id, err := env.st.ParsePublicID(store.KindDocument, public)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestUpdateProfileChecksEachField(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	bad := demoSupplierProfile
	bad.IBAN, bad.GLN, bad.PostalZone, bad.Email, bad.Country = "PT50000201231234567890155", "5601234000017", "1100", "not-an-address", "P1"
	_, err := env.srv.UpdateProfile(ctx, env.entity.ID, " ", bad)
	for field, code := range map[string]string{"name": "e301", "iban": "e390", "gln": "e391", "email": "e302", "country": "e302"} {
		if got := fieldCode(err, field); got != code {
			t.Errorf("%s: %q, want %s", field, got, code)
		}
	}
	bad.Country = "PT"
	if _, err := env.srv.UpdateProfile(ctx, env.entity.ID, "A", bad); fieldCode(err, "postal_zone") != "e392" {
		t.Errorf("postal zone: %v", err)
	}
	p, err := env.srv.UpdateProfile(ctx, env.entity.ID, "A", demoSupplierProfile)
	if err != nil || p.IBAN != "PT50000201231234567890154" {
		t.Fatalf("valid profile: %+v %v", p, err)
	}
	if _, err := env.srv.UpdateProfile(ctx, 999, "A", demoSupplierProfile); fieldCode(err, "") != "e330" {
		t.Fatalf("unknown entity: %v", err)
	}
}

func TestSenderAndNotificationSettings(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	e, err := env.srv.UpdateSender(ctx, env.entity.ID, "Faturação", "contas@fornecedor.example", true)
	if err != nil || e.Mail.FromName != "Faturação" || e.Mail.ReplyTo != "contas@fornecedor.example" || !e.Mail.AttachXML {
		t.Fatalf("sender %+v %v", e.Mail, err)
	}
	if _, err := env.srv.UpdateSender(ctx, env.entity.ID, "", "nope", false); fieldCode(err, "reply_to") != "e302" {
		t.Fatalf("bad reply-to: %v", err)
	}
	n, err := env.srv.UpdateNotifications(ctx, env.entity.ID, true, false, []string{" a@x.pt", "a@x.pt", "", "b@x.pt"})
	if err != nil || !n.OnReceived || n.OnRejected || len(n.CC) != 2 {
		t.Fatalf("notifications %+v %v", n, err)
	}
	if _, err := env.srv.UpdateNotifications(ctx, env.entity.ID, true, true, []string{"x"}); fieldCode(err, "cc") != "e302" {
		t.Fatalf("bad copy: %v", err)
	}
	many := make([]string, 11)
	for i := range many {
		many[i] = string(rune('a'+i)) + "@x.pt"
	}
	if _, err := env.srv.UpdateNotifications(ctx, env.entity.ID, true, true, many); fieldCode(err, "cc") != "e393" {
		t.Fatalf("too many copies: %v", err)
	}
}

// A webhook's test event and a redelivery go out now and show in the entity's delivery log; another
// entity's webhook is not there for it.
func TestWebhookTestLogAndRedelivery(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	env.srv.cfg.Webhooks = fastWebhooks()
	recv := newReceiver(t, "entity key 0123456789")
	recv.fail = 1
	hook, err := env.srv.CreateWebhook(ctx, env.entity.ID, recv.srv.URL, recv.key, []string{eventReceived})
	if err != nil {
		t.Fatal(err)
	}
	other := env.customer.ID
	if _, err := env.srv.UpdateWebhook(ctx, other, hook.ID, recv.srv.URL, "", []string{eventReceived}); fieldCode(err, "") != "e330" {
		t.Fatalf("another entity edits it: %v", err)
	}
	for _, err := range []error{env.srv.TestWebhook(ctx, other, hook.ID), env.srv.DeleteEntityWebhook(ctx, other, hook.ID)} {
		if fieldCode(err, "") != "e330" {
			t.Fatalf("another entity's webhook: %v", err)
		}
	}
	if _, err := env.srv.UpdateWebhook(ctx, env.entity.ID, hook.ID, "ftp://x", "short", nil); fieldCode(err, "url") != "e302" ||
		fieldCode(err, "key") != "e302" || fieldCode(err, "events") != "e301" {
		t.Fatalf("bad edit: %v", err)
	}
	if hook, err = env.srv.UpdateWebhook(ctx, env.entity.ID, hook.ID, recv.srv.URL, "", []string{eventReceived, eventStateChanged}); err != nil || len(hook.Events) != 2 {
		t.Fatalf("edit: %+v %v", hook, err)
	}

	// The test event fails once (the receiver answers 500) and is not retried; redelivered, it arrives.
	if err := env.srv.TestWebhook(ctx, env.entity.ID, hook.ID); err != nil {
		t.Fatal(err)
	}
	if err := env.srv.deliverWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	log, err := env.srv.WebhookAttempts(ctx, env.entity.ID, 10)
	if err != nil || len(log) != 1 || log[0].StatusCode != 500 || log[0].Event != store.WebhookTestEvent || log[0].Error == "" {
		t.Fatalf("log after the failed test: %+v %v", log, err)
	}
	if due := env.queued("webhook"); len(due) != 0 {
		t.Fatalf("a failed test is tried again: %+v", due)
	}
	if err := env.srv.RedeliverWebhook(ctx, other, log[0].ID); fieldCode(err, "") != "e330" {
		t.Fatalf("another entity redelivers: %v", err)
	}
	if err := env.srv.RedeliverWebhook(ctx, env.entity.ID, log[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := env.srv.deliverWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	log, _ = env.srv.WebhookAttempts(ctx, env.entity.ID, 10)
	if len(log) != 2 || log[0].StatusCode != 200 || log[0].Attempt != 2 || log[0].LatencyMS < 0 {
		t.Fatalf("log after the redelivery: %+v", log)
	}
	if len(recv.bodies) != 1 || recv.bodies[0].Event != store.WebhookTestEvent || recv.bodies[0].EventID == "" {
		t.Fatalf("received %+v", recv.bodies)
	}
	if other, _ := env.srv.WebhookAttempts(ctx, env.customer.ID, 10); len(other) != 0 {
		t.Fatalf("another entity's log shows it: %+v", other)
	}
	if err := env.srv.DeleteEntityWebhook(ctx, env.entity.ID, hook.ID); err != nil {
		t.Fatal(err)
	}
	for i := range maxEntityWebhooks {
		if _, err := env.srv.AddEntityWebhook(ctx, env.entity.ID, recv.srv.URL, recv.key, []string{eventReceived}); err != nil {
			t.Fatal(i, err)
		}
	}
	if _, err := env.srv.AddEntityWebhook(ctx, env.entity.ID, recv.srv.URL, recv.key, []string{eventReceived}); fieldCode(err, "url") != "e396" {
		t.Fatalf("one webhook too many: %v", err)
	}
}

// Receiving a document and having one rejected queue a notice in the transaction of the change, for
// the entities that asked for it; the notices job sends each to the entity's users and the copies.
func TestNoticesOnReceivedAndRejected(t *testing.T) {
	dir := t.TempDir()
	env := newDocEnv(t, func(c *Config) { c.Mail.Transport = "outbox"; c.Mail.OutboxDir = dir })
	ctx := context.Background()
	for _, u := range []NewUser{
		{Username: "compras@cliente.example", Password: "a long password", Role: store.RoleViewer, EntityID: env.customer.ID},
		{Username: "contas@fornecedor.example", Password: "a long password", Role: store.RoleAdmin, EntityID: env.entity.ID},
	} {
		if _, err := env.srv.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.srv.UpdateNotifications(ctx, env.customer.ID, true, false, []string{"arquivo@cliente.example"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.srv.UpdateNotifications(ctx, env.entity.ID, false, true, nil); err != nil {
		t.Fatal(err)
	}
	id := env.issue("FT N/1")
	due := env.queued("notice")
	if len(due) != 1 || due[0].EntityID != env.customer.ID {
		t.Fatalf("after the issue: %+v", due)
	}
	if _, err := env.srv.DecideDocument(ctx, env.customer.ID, id, false, "Falta a nota de encomenda"); err != nil {
		t.Fatal(err)
	}
	due = env.queued("notice")
	if len(due) != 2 || due[1].EntityID != env.entity.ID || !strings.Contains(string(due[1].Payload), "Falta a nota de encomenda") {
		t.Fatalf("after the rejection: %+v", due)
	}
	if err := env.srv.deliverNotices(ctx); err != nil {
		t.Fatal(err)
	}
	if due = env.queued("notice"); len(due) != 0 {
		t.Fatalf("still due: %+v", due)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 2 {
		t.Fatalf("messages: %v", files)
	}
	var all string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all += strings.NewReplacer("=\r\n", "", "=\n", "").Replace(string(b)) // undo quoted-printable's soft breaks
	}
	for _, want := range []string{"To: <compras@cliente.example>", "Cc: <arquivo@cliente.example>", "To: <contas@fornecedor.example>",
		"Falta a nota de encomenda", "FT N/1", "/portal/documents/" + id} {
		if !strings.Contains(all, want) {
			t.Errorf("the messages lack %q", want)
		}
	}
}

func TestEntityUsersByItsAdministrator(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	admin, err := env.srv.AddEntityUser(ctx, env.entity.ID, "chefe", store.RoleAdmin, "a long password")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.srv.AddEntityUser(ctx, env.entity.ID, "x", RoleSupport, "a long password"); fieldCode(err, "role") != "e302" {
		t.Fatalf("support from an entity: %v", err)
	}
	if _, err := env.srv.AddEntityUser(ctx, env.entity.ID, "ana", store.RoleViewer, "short"); fieldCode(err, "password") == "" {
		t.Fatalf("weak password: %v", err)
	}
	if _, err := env.srv.AddEntityUser(ctx, env.entity.ID, "ana", store.RoleViewer, "a long password"); err != nil {
		t.Fatal(err)
	}
	if u, err := env.srv.SetEntityUserRole(ctx, env.entity.ID, admin.ID, "ana", store.RoleOperator); err != nil || u.Memberships[0].Role != store.RoleOperator {
		t.Fatalf("role: %+v %v", u, err)
	}
	if _, err := env.srv.SetEntityUserRole(ctx, env.entity.ID, admin.ID, "chefe", store.RoleViewer); fieldCode(err, "username") != "e394" {
		t.Fatalf("own role: %v", err)
	}
	if _, err := env.srv.SetEntityUserRole(ctx, env.customer.ID, admin.ID, "ana", store.RoleAdmin); fieldCode(err, "username") != "e330" {
		t.Fatalf("another entity's admin: %v", err)
	}
	if _, err := env.srv.GrantRole(ctx, "ana", env.customer.ID, store.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if _, err := env.srv.SetEntityUserDisabled(ctx, env.entity.ID, admin.ID, "ana", true); fieldCode(err, "username") != "e395" {
		t.Fatalf("a user of two entities: %v", err)
	}
	env.srv.AddEntityUser(ctx, env.entity.ID, "rui", store.RoleViewer, "a long password")
	if u, err := env.srv.SetEntityUserDisabled(ctx, env.entity.ID, admin.ID, "rui", true); err != nil || !u.Disabled {
		t.Fatalf("disable: %+v %v", u, err)
	}
	s, err := env.srv.Settings(ctx, env.entity.ID)
	if err != nil || len(s.Users) != 3 {
		t.Fatalf("settings users: %+v %v", s.Users, err)
	}
}

// The demo's entities come with complete, valid profiles, and a profile changed later stays.
func TestDemoEntitiesHaveCompleteProfiles(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	dir := t.TempDir()
	creds, err := EnsureDemo(ctx, env.st, dir, "http://127.0.0.1:1/api/v1/pt")
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range creds.Entities {
		e, _ := env.st.EntityByNIF(ctx, de.Country, de.NIF)
		p, err := env.st.ProfileOf(ctx, e.ID)
		if err != nil || p.Street == "" || p.PostalZone == "" || p.City == "" || p.IBAN == "" || p.GLN == "" || p.ShareCapital == "" {
			t.Fatalf("%s: %+v %v", de.NIF, p, err)
		}
		if _, err := env.srv.UpdateProfile(ctx, e.ID, e.Name, p); err != nil {
			t.Fatalf("%s: the demo profile does not pass the checks: %v", de.NIF, err)
		}
	}
	first, _ := env.st.EntityByNIF(ctx, "PT", creds.Entities[0].NIF)
	changed := demoSupplierProfile
	changed.City = "Porto"
	env.srv.UpdateProfile(ctx, first.ID, first.Name, changed)
	if _, err := EnsureDemo(ctx, env.st, dir, "http://127.0.0.1:1/api/v1/pt"); err != nil {
		t.Fatal(err)
	}
	if p, _ := env.st.ProfileOf(ctx, first.ID); p.City != "Porto" {
		t.Fatalf("a second start replaced the changed profile: %+v", p)
	}
}
