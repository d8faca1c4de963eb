package portal

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/signing"
	"einvoice/store"

	"software.sslmate.com/src/go-pkcs12"
)

// consoleSite is a site with something on every console page: a webhook with a delivery attempt, an
// .eml file in the outbox folder, a seal imported through the console's upload form, an AS2 partner,
// an upstream broker and an EDI delivery queued for the partner.
func consoleSite(t *testing.T) (*site, *browser, string) {
	outbox := t.TempDir()
	s := newSite(t, func(c *server.Config) { c.Mail.OutboxDir = outbox })
	ctx := context.Background()
	hook, err := s.srv.CreateWebhook(ctx, s.customer.ID, "https://erp.cliente.example/hook", "a webhook key of 16+", []string{"document.received"})
	if err != nil {
		t.Fatal(err)
	}
	s.issue("FT 2026/700")
	later := time.Now().Add(time.Hour).UTC().Format(store.TimeLayout)
	due, err := s.st.ClaimOutbox(ctx, "webhook", later, later, 10)
	if err != nil || len(due) == 0 {
		t.Fatalf("no webhook delivery queued: %v", err)
	}
	if err := s.st.RecordOutbox(ctx, []store.OutboxResult{{ID: due[0].ID, Done: false, NextAt: "2999-01-01 00:00:00", Error: "503",
		Attempt: &store.WebhookAttempt{WebhookID: hook.ID, Attempt: 1, StatusCode: 503, LatencyMS: 42, Error: "Service Unavailable"}}}); err != nil {
		t.Fatal(err)
	}
	docs, _, err := s.st.Documents(ctx, store.DocumentFilter{EntityID: s.supplier.ID, Side: store.SideIssued, Limit: 1})
	if err != nil || len(docs) != 1 {
		t.Fatalf("the issued document: %v", err)
	}
	if _, err := s.srv.CreateAS2Partner(ctx, server.AS2PartnerInput{Name: "Parceiro EDI", AS2ID: "PARCEIRO-EDI",
		URL: "https://as2.parceiro.example/as2", Certificate: certificatePEM(t, "Parceiro EDI")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.CreateUpstream(ctx, store.Upstream{Name: "Broker Norte", BaseURL: "https://broker.example/api/v1/pt",
		ClientID: "norte-client", Secret: "upstream secret value", PublicKey: "upstream public key"}); err != nil {
		t.Fatal(err)
	}
	if err := s.st.Update(ctx, func(tx *store.Tx) error {
		return tx.QueueEDI(store.EDIDelivery{DocumentID: docs[0].ID, Version: 1, Kind: "document", Connector: "as2", Partner: "Parceiro EDI",
			FromNIF: s.supplier.NIF, ToNIF: "503504564", MessageID: "<edi-msg-1@einvoice>"})
	}); err != nil {
		t.Fatal(err)
	}
	eml := "Return-Path: <b@x>\r\nTo: <ap@cliente.example>\r\nDate: Fri, 20 Nov 2026 10:00:00 +0000\r\nSubject: Fatura FT 2026/700\r\n\r\n<b>olá</b>\r\n"
	if err := os.WriteFile(filepath.Join(outbox, "20261120T100000-m1.eml"), []byte(eml), 0o600); err != nil {
		t.Fatal(err)
	}
	support := s.browser()
	support.login("suporte")
	now := time.Now()
	seal, err := signing.SelfSignedSeal("Fornecedor", s.supplier.NIF, now.Add(-time.Hour), now.AddDate(0, 0, 20))
	if err != nil {
		t.Fatal(err)
	}
	p12, err := pkcs12.Modern.Encode(seal.Signer, seal.Certificate, seal.Chain, "segredo")
	if err != nil {
		t.Fatal(err)
	}
	resp, body := support.uploadFile("/portal/admin/seals", url.Values{"entity": {strconv.FormatInt(s.supplier.ID, 10)}, "password": {"segredo"}}, "file", "seal.p12", p12)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("seal import: %d %s", resp.StatusCode, body)
	}
	return s, support, "20261120T100000-m1.eml"
}

func TestConsolePagesRenderForSupportOnly(t *testing.T) {
	s, support, eml := consoleSite(t)
	supplierID := strconv.FormatInt(s.supplier.ID, 10)
	pages := []struct{ path, want string }{
		{"/portal/admin/entities", "Outra, Lda."},
		{"/portal/admin/entities/" + supplierID, `action="/portal/admin/entities/` + supplierID + `/rules"`},
		{"/portal/admin/credentials", s.clientID},
		{"/portal/admin/connections", `name="admin_observation"`},
		{"/portal/admin/seals", `class="badge tosend"`}, // the seal expires in 20 days
		{"/portal/admin/users", `id="user-cliente"`},
		{"/portal/admin/emails", "Fatura FT 2026/700"},
		{"/portal/admin/outbox/" + eml, "&lt;b&gt;olá&lt;/b&gt;"},
		{"/portal/admin/webhooks", "Service Unavailable"},
		{"/portal/admin/as2", "PARCEIRO-EDI"},
		{"/portal/admin/upstreams", "norte-client"},
		{"/portal/admin/edi", "&lt;edi-msg-1@einvoice&gt;"},
		{"/portal/admin/connections", `<option>Broker Norte</option>`},
		{"/portal/admin/audit", "seal.import"},
	}
	outsider := s.browser()
	outsider.login("outra") // an entity's admin: not the support team
	_, missing := outsider.do(http.MethodGet, "/portal/no-such-page", nil)
	notFound := regexp.MustCompile(`<main id="main">[\s\S]*</main>`).FindString(missing)
	for _, pg := range pages {
		resp, body := support.do(http.MethodGet, pg.path, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, pg.want) || !strings.Contains(body, `<nav class="tabs"`) {
			t.Errorf("support %s: %d, %q in the page: %t", pg.path, resp.StatusCode, pg.want, strings.Contains(body, pg.want))
		}
		if regexp.MustCompile(`\sstyle=|\son[a-z]+=|<script>`).MatchString(body) {
			t.Errorf("%s has inline style or script", pg.path)
		}
		resp, body = outsider.do(http.MethodGet, pg.path, nil)
		if resp.StatusCode != http.StatusNotFound || regexp.MustCompile(`<main id="main">[\s\S]*</main>`).FindString(body) != notFound {
			t.Errorf("outsider %s: %d, or not the same page as any missing page", pg.path, resp.StatusCode)
		}
	}
	// Changes are refused alike, and change nothing.
	resp, _ := outsider.do(http.MethodPost, "/portal/admin/entities", url.Values{"name": {"Intrusa"}, "nif": {"PT503504564"}})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("outsider's POST: %d", resp.StatusCode)
	}
	if resp, _ := outsider.do(http.MethodPost, "/portal/admin/users/suporte/disable", url.Values{}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("outsider disables support: %d", resp.StatusCode)
	}
	if _, body := outsider.do(http.MethodGet, "/portal/", nil); strings.Contains(body, `href="/portal/admin/"`) {
		t.Fatal("the console is in an outsider's menu")
	}
	if _, body := support.do(http.MethodGet, "/portal/", nil); !strings.Contains(body, `href="/portal/admin/"`) {
		t.Fatal("the console is not in support's menu")
	}
	// The EDI queue's state filter.
	for state, shown := range map[string]bool{"queued": true, "done": false, "nonsense": true} {
		if _, body := support.do(http.MethodGet, "/portal/admin/edi?state="+state, nil); strings.Contains(body, "edi-msg-1@einvoice") != shown {
			t.Errorf("EDI queue filtered by %s: shown %t", state, !shown)
		}
	}
	// An outbox file is read by its name in the folder only.
	for _, name := range []string{"..%2Fsecret.eml", ".hidden.eml", "missing.eml", "20261120T100000-m1.txt"} {
		if resp, _ := support.do(http.MethodGet, "/portal/admin/outbox/"+name, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("outbox %s: %d", name, resp.StatusCode)
		}
	}
}

// portalAudit is the audit log's entries made from the portal, newest first, as kind/actor action subject.
func portalAudit(t *testing.T, s *site) []string {
	t.Helper()
	entries, _, err := s.srv.AuditLog(context.Background(), store.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.ActorKind == server.ActorPortal {
			out = append(out, e.ActorKind+"/"+e.Actor+" "+e.Action+" "+e.Subject)
		}
	}
	return out
}

func TestConsoleChangesAreAuditedUnderThePortalUser(t *testing.T) {
	s := newSite(t)
	support := s.browser()
	support.login("suporte")

	// An entity: a refused tax ID shows its code; a good one is created, edited and given a rule.
	resp, body := support.do(http.MethodPost, "/portal/admin/entities", url.Values{"name": {"Nova, Lda."}, "nif": {"PT123456788"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeInvalidValue.ID+`"`) {
		t.Fatalf("bad NIF: %d", resp.StatusCode)
	}
	resp, _ = support.do(http.MethodPost, "/portal/admin/entities", url.Values{"name": {"Nova, Lda."}, "nif": {"PT509442013"}, "test": {"1"}, "transactions": {"5"}})
	entityPage := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(entityPage, "/portal/admin/entities/") {
		t.Fatalf("create entity: %d %s", resp.StatusCode, entityPage)
	}
	created, err := s.st.EntityByNIF(context.Background(), "PT", "509442013")
	if err != nil || !created.TestEntity || created.Transactions != 5 {
		t.Fatalf("entity as stored: %+v %v", created, err)
	}
	if resp, _ = support.do(http.MethodPost, entityPage, url.Values{"name": {"Nova Nome, Lda."}, "pays_received": {"1"}, "transactions": {"7"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("update entity: %d", resp.StatusCode)
	}
	if resp, _ = support.do(http.MethodPost, entityPage+"/rules", url.Values{"rule": {"order_reference"}, "on": {"1"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("rule: %d", resp.StatusCode)
	}
	_, body = support.do(http.MethodGet, entityPage, nil)
	if !strings.Contains(body, `data-message="admin.entity_saved"`) || !strings.Contains(body, `value="Nova Nome, Lda."`) || strings.Contains(body, `name="test" value="1" checked`) {
		t.Fatal("the entity page does not show the change")
	}

	// An OAuth client: its secret is in the answer that creates it, and nowhere afterwards.
	resp, body = support.do(http.MethodPost, "/portal/admin/clients", url.Values{"name": {"ERP novo"}, "scopes": server.AllScopes})
	secret := regexp.MustCompile(`<code id="created-secret">([^<]+)</code>`).FindStringSubmatch(body)
	clientID := regexp.MustCompile(`<code id="created-client-id">([^<]+)</code>`).FindStringSubmatch(body)
	if resp.StatusCode != http.StatusCreated || secret == nil || clientID == nil || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create client: %d", resp.StatusCode)
	}
	if _, body = support.do(http.MethodGet, "/portal/admin/credentials", nil); strings.Contains(body, secret[1]) || !strings.Contains(body, clientID[1]) {
		t.Fatal("the credentials page shows the secret again, or not the client")
	}
	if _, stored, err := s.st.ClientSecret(context.Background(), clientID[1]); err != nil || string(stored) != secret[1] {
		t.Fatalf("the shown secret is not the client's: %v", err)
	}
	resp, body = support.do(http.MethodPost, "/portal/admin/clients", url.Values{"name": {"sem âmbitos"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeRequired.ID+`"`) || strings.Contains(body, `id="created-secret"`) {
		t.Fatalf("client without scopes: %d", resp.StatusCode)
	}
	if resp, _ = support.do(http.MethodPost, "/portal/admin/clients/"+clientID[1]+"/authorize", url.Values{"entity": {strconv.FormatInt(created.ID, 10)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	if resp, _ = support.do(http.MethodPost, "/portal/admin/clients/"+clientID[1]+"/disable", url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	if resp, _ = support.do(http.MethodPost, "/portal/admin/clients/nope/disable", url.Values{}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("disable an unknown client: %d", resp.StatusCode)
	}

	// An entity's operator requests a connection; support declines it with a reason and an observation.
	supplier := s.browser()
	supplier.login("fornecedor")
	resp, body = supplier.do(http.MethodPost, "/portal/connections", url.Values{"nif": {"PT999999990"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeNoSuchTaxID.ID+`"`) {
		t.Fatalf("request to an unknown tax ID: %d", resp.StatusCode)
	}
	if resp, _ = supplier.do(http.MethodPost, "/portal/connections", url.Values{"nif": {"503504564"}, "observation": {"Somos fornecedores"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("request: %d", resp.StatusCode)
	}
	if resp, body = supplier.do(http.MethodPost, "/portal/connections", url.Values{"nif": {"PT503504564"}}); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(body, `data-code="`+server.CodeExists.ID+`"`) {
		t.Fatalf("the same request again: %d", resp.StatusCode)
	}
	viewer := s.browser()
	viewer.login("cliente")
	if resp, _ = viewer.do(http.MethodPost, "/portal/connections", url.Values{"nif": {"503504564"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a viewer's request: %d", resp.StatusCode)
	}
	conns, total, err := s.srv.Connections(context.Background(), store.ConnAnalyzing, 0, 10)
	if err != nil || total != 1 || conns[0].From.ID != s.supplier.ID || conns[0].State != store.ConnAnalyzing {
		t.Fatalf("connections: %+v %v", conns, err)
	}
	id := strconv.FormatInt(conns[0].ID, 10)
	if _, body = support.do(http.MethodGet, "/portal/admin/connections?state=analyzing", nil); strings.Count(body, `<tr id="connection-`) != 1 ||
		!strings.Contains(body, `<tr id="connection-`+id+`"`) {
		t.Fatal("the console's state filter does not show the request alone")
	}
	resp, _ = support.do(http.MethodPost, "/portal/admin/connections/"+id, url.Values{"state": {"declined"}, "reason": {"Falta o contrato"},
		"admin_observation": {"Pedido por telefone"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("review: %d", resp.StatusCode)
	}
	if resp, body = support.do(http.MethodPost, "/portal/admin/connections/"+id, url.Values{"state": {"maybe"}}); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `data-code="`+server.CodeInvalidValue.ID+`"`) {
		t.Fatalf("an unknown state: %d", resp.StatusCode)
	}
	if _, body = support.do(http.MethodGet, "/portal/admin/connections?state=analyzing", nil); strings.Contains(body, `<tr id="connection-`) {
		t.Fatal("a reviewed request is still under analysis")
	}
	_, body = supplier.do(http.MethodGet, "/portal/connections", nil)
	if !strings.Contains(body, "Falta o contrato") || !strings.Contains(body, "conn-declined") || !strings.Contains(body, "Outra, Lda.") {
		t.Fatal("the requester does not see the decline and its reason")
	}
	stranger := s.browser()
	stranger.login("outra")
	if _, body = stranger.do(http.MethodGet, "/portal/connections", nil); !strings.Contains(body, "Fornecedor, Lda.") || strings.Contains(body, "Cliente, S.A.") {
		t.Fatal("the receiving entity's page: not its request, or another's connection")
	}

	// A user: created, its password reset, disabled.
	if resp, _ = support.do(http.MethodPost, "/portal/admin/users", url.Values{"username": {"contabilista"}, "password": {"a long password"},
		"role": {"viewer"}, "entity": {strconv.FormatInt(s.supplier.ID, 10)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("create user: %d", resp.StatusCode)
	}
	if resp, body = support.do(http.MethodPost, "/portal/admin/users/contabilista/grant", url.Values{"entity": {"9999"}, "role": {"admin"}}); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `data-code="`+server.CodeNotFound.ID+`"`) {
		t.Fatalf("a role at an entity that does not exist: %d", resp.StatusCode)
	}
	if resp, body = support.do(http.MethodPost, "/portal/admin/users/contabilista/password", url.Values{"password": {"short"}}); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `data-code="`+server.CodeWeakPassword.ID+`"`) {
		t.Fatalf("weak password: %d", resp.StatusCode)
	}
	for _, path := range []string{"/portal/admin/users/contabilista/password", "/portal/admin/users/contabilista/disable"} {
		if resp, _ = support.do(http.MethodPost, path, url.Values{"password": {"another long one"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}

	want := []string{
		"portal/suporte user.disable contabilista",
		"portal/suporte user.reset_password contabilista",
		"portal/suporte user.create contabilista",
		"portal/suporte connection.state " + conns[0].PublicID,
		"portal/fornecedor connection.create " + conns[0].PublicID,
		"portal/suporte client.disable " + clientID[1],
		"portal/suporte client.authorize " + clientID[1],
		"portal/suporte client.create " + clientID[1],
		"portal/suporte rule.add PT509442013",
		"portal/suporte entity.update PT509442013",
		"portal/suporte entity.create PT509442013",
	}
	got := portalAudit(t, s)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, body = support.do(http.MethodGet, "/portal/admin/audit?actor=fornecedor", nil)
	if !strings.Contains(body, "connection.create") || strings.Contains(body, "entity.create") {
		t.Fatal("the audit page's actor filter")
	}
	_, body = support.do(http.MethodGet, "/portal/admin/audit?action=entity.", nil)
	if strings.Count(body, "<code>entity.") != 2 {
		t.Fatal("the audit page's action-family filter")
	}
}

// The outbox folder's files are read within it: a link to a file elsewhere is neither listed nor shown.
func TestConsoleOutboxStaysInItsFolder(t *testing.T) {
	outbox, elsewhere := t.TempDir(), t.TempDir()
	s := newSite(t, func(c *server.Config) { c.Mail.OutboxDir = outbox })
	secret := filepath.Join(elsewhere, "secret.eml")
	if err := os.WriteFile(secret, []byte("To: <x@y.example>\r\nSubject: Not for the console\r\n\r\nsecret\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(outbox, "20261120T100000-link.eml")); err != nil {
		t.Fatal(err)
	}
	support := s.browser()
	support.login("suporte")
	if resp, body := support.do(http.MethodGet, "/portal/admin/outbox/20261120T100000-link.eml", nil); resp.StatusCode != http.StatusNotFound ||
		strings.Contains(body, "Not for the console") {
		t.Errorf("the linked file: %d", resp.StatusCode)
	}
	if _, body := support.do(http.MethodGet, "/portal/admin/emails", nil); strings.Contains(body, "Not for the console") {
		t.Error("the linked file is listed")
	}
}
