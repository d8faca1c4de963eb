package portal

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/store/storetest"
)

// site is a service with the portal on a fresh database: a supplier and a customer with an approved
// connection, a third entity that has nothing to do with them, and a user at each.
type site struct {
	t                  *testing.T
	srv                *server.Server
	st                 *store.Store
	http               *httptest.Server
	supplier, customer store.Entity
	stranger           store.Entity
	clientID, secret   string
}

const password = "a long password"

func newSite(t *testing.T, tweak ...func(*server.Config)) *site {
	t.Helper()
	srv, st := portalService(t, tweak...)
	s := &site{t: t, st: st, srv: srv}
	ctx := context.Background()
	s.http = httptest.NewServer(s.srv.Handler())
	t.Cleanup(s.http.Close)
	s.supplier = s.entity("Fornecedor, Lda.", "508025338")
	s.customer = s.entity("Cliente, S.A.", "500000000")
	s.stranger = s.entity("Outra, Lda.", "503504564")
	if _, err := st.CreateConnection(ctx, store.NewConnection{FromEntityID: s.supplier.ID, ToEntityID: s.customer.ID,
		State: store.ConnApproved}); err != nil {
		t.Fatal(err)
	}
	client, secret, err := st.CreateClient(ctx, "erp", server.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	s.clientID, s.secret = client.ClientID, secret
	if err := st.Authorize(ctx, client.ID, s.supplier.ID); err != nil {
		t.Fatal(err)
	}
	for _, u := range []server.NewUser{
		{Username: "fornecedor", Password: password, Role: store.RoleOperator, EntityID: s.supplier.ID},
		{Username: "cliente", Password: password, Role: store.RoleViewer, EntityID: s.customer.ID},
		{Username: "outra", Password: password, Role: store.RoleAdmin, EntityID: s.stranger.ID},
		{Username: "suporte", Password: password, Role: server.RoleSupport},
	} {
		if _, err := s.srv.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// portalService is a service with the portal mounted, over a new store, its test configuration
// changed by tweak.
func portalService(tb testing.TB, tweak ...func(*server.Config)) (*server.Server, *store.Store) {
	tb.Helper()
	cfg := server.Config{
		HTTP:      server.HTTPConfig{BodyLimit: 1 << 20, RequestTimeout: 10 * time.Second, ShutdownTimeout: time.Second},
		Auth:      server.AuthConfig{AccessTokenTTL: 30 * time.Minute, TimestampSkew: 300 * time.Second},
		RateLimit: server.RateLimitConfig{RequestsPerMinute: 1000, BlockFor: time.Minute},
		Jobs:      server.JobsConfig{MaintenanceInterval: time.Minute, Timeout: time.Minute},
		Mail:      server.DefaultMail(),
		Portal:    server.DefaultPortal(),
	}
	cfg.Environment.Mode = "production"
	for _, f := range tweak {
		f(&cfg)
	}
	st := storetest.Open(tb, []byte("portal test secret key 0123"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := server.New(cfg, st, log)
	if err := Mount(srv, log); err != nil {
		tb.Fatal(err)
	}
	return srv, st
}

func (s *site) entity(name, nif string) store.Entity {
	e, err := s.st.CreateEntity(context.Background(), store.NewEntity{Name: name, Country: "PT", NIF: nif})
	if err != nil {
		s.t.Fatal(err)
	}
	return e
}

// issue creates the sample invoice under number through the API, as the supplier.
func (s *site) issue(number string) {
	s.t.Helper()
	xml, err := os.ReadFile(filepath.Join("..", "..", "docs", "sample-invoice.xml"))
	if err != nil {
		s.t.Fatal(err)
	}
	ts, nonce := strconv.FormatInt(time.Now().Unix(), 10), "n"+strconv.FormatInt(time.Now().UnixNano(), 36)
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {s.clientID}, "timestamp": {ts}, "nonce": {nonce},
		"signature": {server.RequestSignature(s.clientID, ts, nonce, []byte(s.secret))}}
	resp, err := http.PostForm(s.http.URL+"/api/v1/pt/oauth2/token", form)
	if err != nil {
		s.t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	body := strings.ReplaceAll(string(xml), "FT 2026/128", number)
	req, _ := http.NewRequest(http.MethodPost, s.http.URL+"/api/v1/pt/apps/documentsUBL", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("entity", s.supplier.PublicKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("issuing %s: %d %s", number, resp.StatusCode, b)
	}
}

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	t       *testing.T
	site    *site
	cookies map[string]*http.Cookie
	lang    string
}

func (s *site) browser() *browser {
	return &browser{t: s.t, site: s, cookies: map[string]*http.Cookie{}}
}

func (b *browser) do(method, path string, form url.Values, headers ...string) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.site.http.URL+path, body)
	if form != nil {
		b.sameOrigin(req, "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.send(req)
}

// sameOrigin marks req as a form of this site's pages, with its content type.
func (b *browser) sameOrigin(req *http.Request, contentType string) {
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Origin", b.site.http.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
}

// send makes req as the browser would, with its language and cookies, without following redirects,
// and keeps the cookies of the answer.
func (b *browser) send(req *http.Request) (*http.Response, string) {
	b.t.Helper()
	if b.lang != "" {
		req.Header.Set("Accept-Language", b.lang)
	}
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	out, _ := io.ReadAll(resp.Body)
	return resp, string(out)
}

// everyRole adds an operator at the customer ("operadora") and signs in a browser for each role: the
// supplier's operator, the customer's viewer and operator, and the stranger's administrator.
func (s *site) everyRole() (supplier, viewer, operator, stranger *browser) {
	s.t.Helper()
	if _, err := s.srv.CreateUser(context.Background(), server.NewUser{Username: "operadora", Password: password,
		Role: store.RoleOperator, EntityID: s.customer.ID}); err != nil {
		s.t.Fatal(err)
	}
	supplier, viewer, operator, stranger = s.browser(), s.browser(), s.browser(), s.browser()
	supplier.login("fornecedor")
	viewer.login("cliente")
	operator.login("operadora")
	stranger.login("outra")
	return supplier, viewer, operator, stranger
}

func (b *browser) login(username string) {
	b.t.Helper()
	resp, body := b.do(http.MethodPost, "/portal/login", url.Values{"username": {username}, "password": {password}})
	if resp.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("login %s: %d %s", username, resp.StatusCode, body)
	}
}

func TestSignInSessionAndCookies(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	if resp, _ := b.do(http.MethodGet, "/", nil); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/portal/" {
		t.Fatalf("/: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ := b.do(http.MethodGet, "/portal/issued?state=sent", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/portal/login?next="+url.QueryEscape("/portal/issued?state=sent") {
		t.Fatalf("signed out: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := b.do(http.MethodGet, "/portal/login", nil)
	if resp.StatusCode != 200 || !strings.Contains(body, `name="username"`) || !strings.Contains(body, `name="password"`) {
		t.Fatalf("login form: %d", resp.StatusCode)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(body, "<script>") ||
		regexp.MustCompile(`\sstyle=|\son[a-z]+=`).MatchString(body) {
		t.Fatalf("CSP %q or inline script/style in the page", csp)
	}

	resp, body = b.do(http.MethodPost, "/portal/login", url.Values{"username": {"fornecedor"}, "password": {"wrong one!!"}})
	if resp.StatusCode != http.StatusUnauthorized || b.cookies[sessionCookie] != nil || !strings.Contains(body, `data-code="`+server.CodeLoginFailed.ID+`"`) {
		t.Fatalf("wrong password: %d", resp.StatusCode)
	}
	resp, _ = b.do(http.MethodPost, "/portal/login", url.Values{"username": {"fornecedor"}, "password": {password},
		"next": {"//evil.example/x"}})
	c := b.cookies[sessionCookie]
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/portal/" || c == nil {
		t.Fatalf("login: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/portal/" || len(c.Value) < 64 {
		t.Fatalf("session cookie %+v", c)
	}
	if resp, body = b.do(http.MethodGet, "/portal/", nil); resp.StatusCode != 200 || !strings.Contains(body, "Fornecedor, Lda.") {
		t.Fatalf("dashboard: %d", resp.StatusCode)
	}

	// A form posted from another site is refused, even with the session cookie.
	resp, _ = b.do(http.MethodPost, "/portal/logout", url.Values{}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site logout: %d", resp.StatusCode)
	}
	if resp, _ = b.do(http.MethodGet, "/portal/", nil); resp.StatusCode != 200 {
		t.Fatalf("session lost to a cross-site post: %d", resp.StatusCode)
	}

	token := b.cookies[sessionCookie].Value
	if resp, _ = b.do(http.MethodPost, "/portal/logout", url.Values{}); resp.StatusCode != http.StatusSeeOther || b.cookies[sessionCookie] != nil {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	b.cookies[sessionCookie] = &http.Cookie{Name: sessionCookie, Value: token}
	if resp, _ = b.do(http.MethodGet, "/portal/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the ended session still works: %d", resp.StatusCode)
	}
}

func TestSecureCookieBehindHTTPS(t *testing.T) {
	s := newSite(t, func(c *server.Config) { c.HTTP.PublicURL = "https://einvoice.example" })
	b := s.browser()
	b.login("fornecedor")
	if c := b.cookies[sessionCookie]; c == nil || !c.Secure {
		t.Fatalf("cookie %+v", c)
	}
}

func TestListsShowOnlyTheEntitysDocuments(t *testing.T) {
	s := newSite(t)
	for i := range 3 {
		s.issue(fmt.Sprintf("FT 2026/%d", 500+i))
	}
	supplier, customer, stranger, support := s.browser(), s.browser(), s.browser(), s.browser()
	supplier.login("fornecedor")
	customer.login("cliente")
	stranger.login("outra")
	support.login("suporte")

	rows := regexp.MustCompile(`<tr><td><a href="/portal/documents/[^"]+">([^<]+)</a>`)
	numbers := func(b *browser, path string) []string {
		t.Helper()
		resp, body := b.do(http.MethodGet, path, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		var out []string
		for _, m := range rows.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	if got := numbers(supplier, "/portal/issued?sort=number"); strings.Join(got, ",") != "FT 2026/500,FT 2026/501,FT 2026/502" {
		t.Fatalf("issued, by number: %v", got)
	}
	if got := numbers(supplier, "/portal/issued?number=501"); len(got) != 1 || got[0] != "FT 2026/501" {
		t.Fatalf("number filter: %v", got)
	}
	if got := numbers(supplier, "/portal/issued?state=rejected"); len(got) != 0 {
		t.Fatalf("state filter: %v", got)
	}
	if got := numbers(supplier, "/portal/issued?rows=2&page=2&sort=number"); len(got) != 1 || got[0] != "FT 2026/502" {
		t.Fatalf("second page of two rows: %v", got)
	}
	if got := numbers(supplier, "/portal/received"); len(got) != 0 {
		t.Fatalf("the supplier received: %v", got)
	}
	if got := numbers(customer, "/portal/received?nif=PT508025338"); len(got) != 3 {
		t.Fatalf("the customer received: %v", got)
	}
	if got := numbers(customer, "/portal/issued"); len(got) != 0 {
		t.Fatalf("the customer issued: %v", got)
	}
	resp, body := supplier.do(http.MethodGet, "/portal/issued.csv?number=50&sort=-number", nil)
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || len(lines) != 4 ||
		!strings.HasPrefix(lines[1], "FT 2026/502,") || !strings.Contains(lines[1], ",PT500000000,") {
		t.Fatalf("CSV: %d %q", resp.StatusCode, lines)
	}
	if _, body := stranger.do(http.MethodGet, "/portal/issued.csv", nil); strings.Count(strings.TrimSpace(body), "\n") != 0 {
		t.Fatalf("stranger's CSV: %q", body)
	}
	resp, body = customer.do(http.MethodGet, "/portal/received.zip?number=501", nil)
	zr, err := zip.NewReader(strings.NewReader(body), int64(len(body)))
	if resp.StatusCode != 200 || err != nil || len(zr.File) != 2 || zr.File[0].Name != "FT 2026-501.xml" || zr.File[1].Name != "FT 2026-501.pdf" {
		t.Fatalf("ZIP: %d %v", resp.StatusCode, err)
	}
	for _, f := range zr.File {
		r, _ := f.Open()
		b, _ := io.ReadAll(r)
		if f.Name == "FT 2026-501.pdf" && !strings.HasPrefix(string(b), "%PDF-") || f.Name == "FT 2026-501.xml" && !strings.Contains(string(b), "FT 2026/501") {
			t.Fatalf("ZIP entry %s: %.20q", f.Name, b)
		}
	}
	if _, body := stranger.do(http.MethodGet, "/portal/received.zip", nil); len(body) > 100 {
		t.Fatalf("stranger's ZIP has %d bytes", len(body))
	}
	// The stranger sees nothing and cannot switch to another entity.
	for _, path := range []string{"/portal/issued", "/portal/received", "/portal/tosend"} {
		if got := numbers(stranger, path); len(got) != 0 {
			t.Fatalf("stranger %s: %v", path, got)
		}
	}
	resp, _ = stranger.do(http.MethodPost, "/portal/entity", url.Values{"entity": {"PT508025338"}, "next": {"/portal/issued"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("switch: %d", resp.StatusCode)
	}
	if got := numbers(stranger, "/portal/issued"); len(got) != 0 {
		t.Fatalf("stranger switched to another entity: %v", got)
	}
	// Support switches to any entity.
	support.do(http.MethodPost, "/portal/entity", url.Values{"entity": {"PT500000000"}, "next": {"/portal/"}})
	if got := numbers(support, "/portal/received"); len(got) != 3 {
		t.Fatalf("support at the customer: %v", got)
	}
	_, body = support.do(http.MethodGet, "/portal/", nil)
	if !strings.Contains(body, "Cliente, S.A.") || !strings.Contains(body, `<select id="entity-switch"`) {
		t.Fatal("support's overview is not the chosen entity's, or has no switch")
	}
}

func TestLanguageAndAccount(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	b.lang = "en-GB,en;q=0.9,pt;q=0.5"
	if _, body := b.do(http.MethodGet, "/portal/login", nil); !strings.Contains(body, `<html lang="en">`) {
		t.Fatal("Accept-Language en is not English")
	}
	b.do(http.MethodGet, "/portal/lang/pt?next=/portal/login", nil)
	if _, body := b.do(http.MethodGet, "/portal/login", nil); !strings.Contains(body, `<html lang="pt">`) {
		t.Fatal("the language switch is not kept")
	}
	b.login("fornecedor")
	other := s.browser()
	other.login("fornecedor")
	resp, body := b.do(http.MethodPost, "/portal/account/password", url.Values{"current": {"not it at all"}, "password": {"brand new password"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeWrongPassword.ID+`"`) {
		t.Fatalf("wrong current password: %d", resp.StatusCode)
	}
	if resp, _ = b.do(http.MethodPost, "/portal/account/password", url.Values{"current": {password}, "password": {"brand new password"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("change: %d", resp.StatusCode)
	}
	if resp, _ = other.do(http.MethodGet, "/portal/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the other session survived the password change: %d", resp.StatusCode)
	}
	_, body = b.do(http.MethodGet, "/portal/account", nil)
	if !strings.Contains(body, `data-message="account.password_changed"`) || strings.Count(body, "<tr><td>") != 1 {
		t.Fatal("account page after the change: no flash, or not one session")
	}
}

// TestTemplatesUseOnlyCatalogueKeys checks every {{t "key"}} of the templates against the catalogue.
func TestTemplatesUseOnlyCatalogueKeys(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "web", "templates", "*.html"))
	if len(files) == 0 {
		t.Fatal("no templates found")
	}
	key := regexp.MustCompile(`\bt "([a-z_.]+)"`)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range key.FindAllStringSubmatch(string(b), -1) {
			if !i18n.Has(m[1]) {
				t.Errorf("%s: %q is not in the catalogue", filepath.Base(f), m[1])
			}
		}
	}
}

func TestDocumentPageFilesAndDecision(t *testing.T) {
	s := newSite(t)
	s.issue("FT 2026/900")
	supplier, viewer, operator, stranger := s.everyRole()

	_, list := supplier.do(http.MethodGet, "/portal/issued", nil)
	m := regexp.MustCompile(`href="(/portal/documents/[0-9a-f]{32})"`).FindStringSubmatch(list)
	if m == nil {
		t.Fatal("no document link in the issued list")
	}
	page := m[1]
	resp, body := supplier.do(http.MethodGet, page, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, "FT 2026/900") || !strings.Contains(body, "Fornecedor") ||
		!strings.Contains(body, `<iframe class="pdf"`) || strings.Contains(body, `action="`+page+`/decision"`) {
		t.Fatalf("issuer's page: %d", resp.StatusCode)
	}
	resp, xml := supplier.do(http.MethodGet, page+"/xml", nil)
	if resp.StatusCode != 200 || !strings.Contains(xml, "FT 2026/900") || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("XML: %d %s", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	resp, pdfBytes := viewer.do(http.MethodGet, page+"/pdf?inline=1", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(pdfBytes, "%PDF-") || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "inline") {
		t.Fatalf("PDF: %d %q", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	for _, path := range []string{page, page + "/xml", page + "/pdf", "/portal/documents/0123456789abcdef0123456789abcdef"} {
		if resp, _ := stranger.do(http.MethodGet, path, nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("stranger %s: %d", path, resp.StatusCode)
		}
	}

	// A viewer reads but may not decide; an operator decides, and a rejection needs a reason.
	if _, body := viewer.do(http.MethodGet, page, nil); strings.Contains(body, "/decision") {
		t.Fatal("the viewer is offered the decision")
	}
	if resp, _ := viewer.do(http.MethodPost, page+"/decision", url.Values{"accepted": {"0"}, "reason": {"no"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("viewer's decision: %d", resp.StatusCode)
	}
	if resp, _ := stranger.do(http.MethodPost, page+"/decision", url.Values{"accepted": {"0"}, "reason": {"no"}}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("stranger's decision: %d", resp.StatusCode)
	}
	_, body = operator.do(http.MethodGet, page, nil)
	if !strings.Contains(body, `action="`+page+`/decision"`) {
		t.Fatal("the operator is not offered the decision")
	}
	resp, body = operator.do(http.MethodPost, page+"/decision", url.Values{"accepted": {"0"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-code="`+server.CodeRequired.ID+`"`) {
		t.Fatalf("rejection without a reason: %d", resp.StatusCode)
	}
	if resp, _ = operator.do(http.MethodPost, page+"/decision", url.Values{"accepted": {"0"}, "reason": {"Falta a nota de encomenda"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("rejection: %d", resp.StatusCode)
	}
	_, body = supplier.do(http.MethodGet, page, nil)
	if !strings.Contains(body, `class="badge rejected"`) || !strings.Contains(body, "Falta a nota de encomenda") {
		t.Fatal("the issuer does not see the rejection and its reason")
	}
	if resp, _ = operator.do(http.MethodPost, page+"/decision", url.Values{"accepted": {"1"}}); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a second decision: %d", resp.StatusCode)
	}
}

// The sign-in throttle counts by the TCP peer: a forged X-Forwarded-For does not buy more attempts.
func TestSignInThrottleIgnoresForgedForwardedFor(t *testing.T) {
	s := newSite(t, func(c *server.Config) { c.Portal.LoginFailures = 3 })
	b := s.browser()
	for i := range 4 {
		resp, _ := b.do(http.MethodPost, "/portal/login", url.Values{"username": {fmt.Sprintf("nobody%d", i)}, "password": {"wrong password"}},
			"X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
		want := http.StatusUnauthorized
		if i == 3 {
			want = http.StatusTooManyRequests
		}
		if resp.StatusCode != want {
			t.Fatalf("attempt %d: %d, want %d", i+1, resp.StatusCode, want)
		}
		if i == 3 && resp.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
	}
}

func TestValidatePage(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	b.login("cliente") // a viewer may validate: nothing is issued or kept
	xml, err := os.ReadFile(filepath.Join("..", "..", "docs", "sample-invoice.xml"))
	if err != nil {
		t.Fatal(err)
	}
	post := func(name string, content []byte) (*http.Response, string) {
		var body strings.Builder
		w := multipart.NewWriter(&body)
		w.WriteField("profile", "auto")
		fw, _ := w.CreateFormFile("file", name)
		fw.Write(content)
		w.Close()
		req, _ := http.NewRequest(http.MethodPost, s.http.URL+"/portal/validate", strings.NewReader(body.String()))
		req.Header.Set("Content-Type", w.FormDataContentType())
		for _, c := range b.cookies {
			req.AddCookie(c)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp, string(out)
	}
	resp, body := post("good.xml", xml)
	if resp.StatusCode != 200 || !strings.Contains(body, `class="badge accepted"`) || !strings.Contains(body, "good.xml") {
		t.Fatalf("valid invoice: %d", resp.StatusCode)
	}
	bad := strings.Replace(string(xml), "<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>", "<cbc:DocumentCurrencyCode>XXX</cbc:DocumentCurrencyCode>", 1)
	resp, body = post("../../bad.xml", []byte(bad))
	if resp.StatusCode != 200 || !strings.Contains(body, `class="badge rejected"`) || !regexp.MustCompile(`<code>[A-Z]+-[A-Z0-9-]+`).MatchString(body) ||
		strings.Contains(body, "../") {
		t.Fatalf("invalid invoice: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodPost, "/portal/validate", url.Values{"profile": {"auto"}}); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("no file: %d", resp.StatusCode)
	}
}
