package portal

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/signing"
	"einvoice/store"

	"software.sslmate.com/src/go-pkcs12"
)

// certificatePEM is a new self-signed RSA certificate as PEM, named after name.
func certificatePEM(t *testing.T, name string) string {
	t.Helper()
	seal, err := signing.SelfSignedSeal(name, "503504564", time.Now().Add(-time.Hour), time.Now().AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: seal.Certificate.Raw}))
}

func TestConsoleManagesAS2AndUpstreams(t *testing.T) {
	s := newSite(t)
	ctx := context.Background()
	support := s.browser()
	support.login("suporte")
	outsider := s.browser()
	outsider.login("outra")
	flash := func(page, key string) {
		t.Helper()
		if _, body := support.do(http.MethodGet, page, nil); !strings.Contains(body, `data-message="`+key+`"`) {
			t.Fatalf("%s: no %s message", page, key)
		}
	}
	refused := func(what string, resp *http.Response, body string, status int, code *server.Code) {
		t.Helper()
		if resp.StatusCode != status || !strings.Contains(body, `data-code="`+code.ID+`"`) {
			t.Fatalf("%s: %d, want %d with %s", what, resp.StatusCode, status, code.ID)
		}
	}

	// The identity made on first use, and its certificate for partners.
	first, err := s.srv.AS2Identity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, body := support.do(http.MethodGet, "/portal/admin/as2/certificate.pem", nil)
	if resp.StatusCode != http.StatusOK || body != first.Certificate || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("certificate download: %d %q", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	if resp, _ = outsider.do(http.MethodGet, "/portal/admin/as2/certificate.pem", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("outsider's certificate download: %d", resp.StatusCode)
	}

	// An identity imported from a PKCS#12: a wrong password is refused, the right one replaces it.
	seal, err := signing.SelfSignedSeal("Instalação AS2", s.supplier.NIF, time.Now().Add(-time.Hour), time.Now().AddDate(2, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	p12, err := pkcs12.Modern.Encode(seal.Signer, seal.Certificate, seal.Chain, "segredo")
	if err != nil {
		t.Fatal(err)
	}
	resp, body = support.uploadFile("/portal/admin/as2/identity", url.Values{"password": {"errada"}, "as2_id": {"EINVOICE-NOVO"}}, "file", "id.p12", p12)
	refused("wrong PKCS#12 password", resp, body, http.StatusBadRequest, server.CodeAS2FileUnreadable)
	resp, body = support.uploadFile("/portal/admin/as2/identity", url.Values{"password": {"segredo"}, "as2_id": {"EINVOICE-NOVO"}}, "file", "id.p12", p12)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/portal/admin/as2" {
		t.Fatalf("identity import: %d %s", resp.StatusCode, body)
	}
	flash("/portal/admin/as2", "admin.as2_identity_imported")
	if id, err := s.srv.AS2Identity(ctx); err != nil || id.AS2ID != "EINVOICE-NOVO" || id.Fingerprint == first.Fingerprint {
		t.Fatalf("identity after the import: %+v %v", id, err)
	}

	// A partner: created with an uploaded certificate, refused with a bad one or a taken name, changed
	// with a pasted one, deleted.
	partner := url.Values{"name": {"Parceiro Sul"}, "as2_id": {"SUL-AS2"}, "url": {"https://as2.sul.example/as2"}, "sign": {"sha256"},
		"cipher": {"aes128"}, "mdn": {"sync"}, "compress": {"1"}}
	resp, body = support.uploadFile("/portal/admin/as2/partners", partner, "certificate_file", "sul.pem", []byte(certificatePEM(t, "Sul")))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("create partner: %d %s", resp.StatusCode, body)
	}
	flash("/portal/admin/as2", "admin.partner_created")
	resp, body = support.uploadFile("/portal/admin/as2/partners", partner, "certificate_file", "sul.pem", []byte(certificatePEM(t, "Sul")))
	refused("the same partner again", resp, body, http.StatusConflict, server.CodeExists)
	other := url.Values{"name": {"Outro"}, "as2_id": {"OUTRO"}, "url": {"https://as2.outro.example/as2"}, "certificate": {"not a certificate"}}
	resp, body = support.do(http.MethodPost, "/portal/admin/as2/partners", other)
	refused("a bad certificate", resp, body, http.StatusBadRequest, server.CodeAS2BadCertificate)
	ps, err := s.srv.AS2Partners(ctx)
	if err != nil || len(ps) != 1 || ps[0].Cipher != "aes128" || ps[0].MDN != "sync" || !ps[0].Compress {
		t.Fatalf("partners: %+v %v", ps, err)
	}
	oldCert := ps[0].Certificate
	update := url.Values{"name": {"Parceiro Sul"}, "new_name": {"Parceiro Sul 2"}, "as2_id": {"SUL-AS2"}, "url": {"https://as2.sul.example/v2"},
		"sign": {"sha1"}, "cipher": {"aes256"}, "mdn": {"async"}}
	if resp, body = support.do(http.MethodPost, "/portal/admin/as2/partners/update", update); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("update partner: %d %s", resp.StatusCode, body)
	}
	flash("/portal/admin/as2", "admin.partner_saved")
	ps, _ = s.srv.AS2Partners(ctx)
	if len(ps) != 1 || ps[0].Name != "Parceiro Sul 2" || ps[0].Sign != "sha1" || ps[0].Compress || ps[0].Certificate != oldCert {
		t.Fatalf("the partner after the update: %+v", ps)
	}
	update.Set("name", "Parceiro Sul 2")
	update.Set("certificate", certificatePEM(t, "Sul renovado"))
	if resp, _ = support.do(http.MethodPost, "/portal/admin/as2/partners/update", update); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("renew the certificate: %d", resp.StatusCode)
	}
	if ps, _ = s.srv.AS2Partners(ctx); ps[0].Certificate == oldCert {
		t.Fatal("the pasted certificate was not kept")
	}
	update.Set("url", "ftp://as2.sul.example")
	resp, body = support.do(http.MethodPost, "/portal/admin/as2/partners/update", update)
	refused("a bad URL", resp, body, http.StatusBadRequest, server.CodeInvalidValue)
	if resp, _ = support.do(http.MethodPost, "/portal/admin/as2/partners/update", url.Values{"name": {"Ninguém"}, "new_name": {"x"}}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("update an unknown partner: %d", resp.StatusCode)
	}

	// An upstream: its secrets are never shown; a second of the same name is refused; deleted.
	upstream := url.Values{"name": {"Broker Norte"}, "base_url": {"https://broker.example/api/v1/pt"}, "client_id": {"norte-client"},
		"secret": {"the upstream secret"}, "public_key": {"the entity key there"}}
	if resp, body = support.do(http.MethodPost, "/portal/admin/upstreams", upstream); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("create upstream: %d %s", resp.StatusCode, body)
	}
	_, body = support.do(http.MethodGet, "/portal/admin/upstreams", nil)
	if !strings.Contains(body, `data-message="admin.upstream_created"`) || !strings.Contains(body, "norte-client") ||
		strings.Contains(body, "the upstream secret") || strings.Contains(body, "the entity key there") {
		t.Fatal("the upstreams page: no message or client, or a secret shown")
	}
	resp, body = support.do(http.MethodPost, "/portal/admin/upstreams", upstream)
	refused("the same upstream again", resp, body, http.StatusConflict, server.CodeExists)
	resp, body = support.do(http.MethodPost, "/portal/admin/upstreams", url.Values{"name": {"Sem URL"}, "base_url": {"broker"}})
	refused("an upstream without a URL", resp, body, http.StatusBadRequest, server.CodeInvalidValue)

	// A connection approved through the partner, then through the upstream.
	conns, _, err := s.srv.Connections(ctx, "", 0, 1)
	if err != nil || len(conns) == 0 {
		t.Fatalf("no connection to review: %v", err)
	}
	review := url.Values{"state": {store.ConnApproved}, "partner": {"Parceiro Sul 2"}, "upstream": {""}}
	connection := "/portal/admin/connections/" + strconv.FormatInt(conns[0].ID, 10)
	if resp, _ = support.do(http.MethodPost, connection, review); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve through the partner: %d", resp.StatusCode)
	}
	if _, body = support.do(http.MethodGet, "/portal/admin/connections", nil); !strings.Contains(body, `<option selected>Parceiro Sul 2</option>`) {
		t.Fatal("the connection's partner is not chosen on the console")
	}
	review.Set("partner", "")
	review.Set("upstream", "Broker Norte")
	if resp, _ = support.do(http.MethodPost, connection, review); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve through the upstream: %d", resp.StatusCode)
	}
	if cs, _, _ := s.srv.Connections(ctx, "", 0, 100); !hasRoute(cs, conns[0].ID, "", "Broker Norte") {
		t.Fatal("the connection does not go through the upstream")
	}

	// Deletions, and the outsider can change nothing.
	for _, post := range []struct{ path, name string }{{"/portal/admin/as2/partners/delete", "Parceiro Sul 2"}, {"/portal/admin/upstreams/delete", "Broker Norte"},
		{"/portal/admin/as2/partners", "Intruso"}, {"/portal/admin/upstreams", "Intruso"}, {"/portal/admin/as2/partners/update", "Parceiro Sul 2"}} {
		if resp, _ = outsider.do(http.MethodPost, post.path, url.Values{"name": {post.name}}); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("outsider's POST %s: %d", post.path, resp.StatusCode)
		}
	}
	if resp, _ = outsider.uploadFile("/portal/admin/as2/identity", url.Values{"password": {"segredo"}}, "file", "id.p12", p12); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("outsider's identity import: %d", resp.StatusCode)
	}
	if resp, _ = support.do(http.MethodPost, "/portal/admin/as2/partners/delete", url.Values{"name": {"Parceiro Sul 2"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete partner: %d", resp.StatusCode)
	}
	flash("/portal/admin/as2", "admin.partner_deleted")
	if resp, _ = support.do(http.MethodPost, "/portal/admin/upstreams/delete", url.Values{"name": {"Broker Norte"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete upstream: %d", resp.StatusCode)
	}
	flash("/portal/admin/upstreams", "admin.upstream_deleted")
	if _, body = support.do(http.MethodGet, "/portal/admin/connections", nil); !strings.Contains(body, `<option selected>Broker Norte</option>`) {
		t.Fatal("the connection's deleted upstream is no longer its choice: saving the form would drop it")
	}
	if resp, _ = support.do(http.MethodPost, "/portal/admin/upstreams/delete", url.Values{"name": {"Broker Norte"}}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("delete a deleted upstream: %d", resp.StatusCode)
	}

	want := []string{
		"portal/suporte upstream.delete Broker Norte",
		"portal/suporte as2_partner.delete Parceiro Sul 2",
		"portal/suporte connection.state " + conns[0].PublicID,
		"portal/suporte connection.state " + conns[0].PublicID,
		"portal/suporte upstream.create Broker Norte",
		"portal/suporte as2_partner.update Parceiro Sul 2",
		"portal/suporte as2_partner.update Parceiro Sul",
		"portal/suporte as2_partner.create Parceiro Sul",
		"portal/suporte as2_identity.import EINVOICE-NOVO",
	}
	if got := portalAudit(t, s); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// hasRoute tells whether the connection id goes through partner and upstream.
func hasRoute(cs []store.Connection, id int64, partner, upstream string) bool {
	for _, c := range cs {
		if c.ID == id {
			return c.Partner == partner && c.Upstream == upstream
		}
	}
	return false
}
