package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/store/storetest"
)

// testEnv is a service on a fresh database with one entity, one OAuth client and one platform token
// authorised for it.
type testEnv struct {
	t       *testing.T
	srv     *Server
	st      *store.Store
	entity  store.Entity
	client  store.Credential
	secret  string
	token   string // legacy platform token
	tokenID int64
}

func testConfig() Config {
	return Config{
		HTTP:        HTTPConfig{Listen: "127.0.0.1:0", BodyLimit: 1 << 20, RequestTimeout: 10 * time.Second, ShutdownTimeout: 5 * time.Second},
		Auth:        AuthConfig{AccessTokenTTL: 30 * time.Minute, TimestampSkew: 300 * time.Second},
		RateLimit:   RateLimitConfig{RequestsPerMinute: 200, BlockFor: 2 * time.Minute},
		Environment: EnvironmentConfig{Mode: "production"},
		Jobs:        JobsConfig{MaintenanceInterval: time.Minute, Timeout: time.Minute},
		Mail:        DefaultMail(),
		Portal:      DefaultPortal(),
		EDI:         DefaultEDI(),
	}
}

func newTestEnv(t *testing.T, tweak ...func(*Config)) *testEnv {
	t.Helper()
	cfg := testConfig()
	for _, f := range tweak {
		f(&cfg)
	}
	st := storetest.Open(t, []byte("test secret key 0123456789"))
	return newTestEnvOn(t, cfg, st)
}

// newTestEnvOn is newTestEnv's service on an open store.
func newTestEnvOn(t *testing.T, cfg Config, st *store.Store) *testEnv {
	t.Helper()
	ctx := context.Background()
	env := &testEnv{t: t, st: st, srv: New(cfg, st, slog.New(slog.NewTextHandler(io.Discard, nil)))}
	env.entity = env.mustEntity("Fornecedor", "508025338")
	env.client, env.secret = env.mustClient(AllScopes...)
	cred, token, err := st.CreatePlatformToken(ctx, "platform", AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	env.token, env.tokenID = token, cred.ID
	if err := st.Authorize(ctx, cred.ID, env.entity.ID); err != nil {
		t.Fatal(err)
	}
	return env
}

func (e *testEnv) mustEntity(name, nif string) store.Entity {
	e.t.Helper()
	ent, err := e.st.CreateEntity(context.Background(), store.NewEntity{Name: name, Country: "PT", NIF: nif})
	if err != nil {
		e.t.Fatal(err)
	}
	return ent
}

// mustClient creates an OAuth client with the scopes, authorised for the env's entity.
func (e *testEnv) mustClient(scopes ...string) (store.Credential, string) {
	e.t.Helper()
	c, secret, err := e.st.CreateClient(context.Background(), "client", scopes)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.Authorize(context.Background(), c.ID, e.entity.ID); err != nil {
		e.t.Fatal(err)
	}
	return c, secret
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (e *testEnv) do(method, path string, header map[string]string, body string) response {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	checkContract(e.t, method, path, header, body, rec)
	r := response{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(rec.Body.Bytes(), &r.body); err != nil {
			e.t.Fatalf("%s %s: body is not JSON: %v\n%s", method, path, err, r.raw)
		}
	}
	return r
}

// tokenBody is a signed token request for the client, at ts with nonce.
func tokenBody(clientID, secret string, ts int64, nonce string) string {
	t := strconv.FormatInt(ts, 10)
	return fmt.Sprintf(`{"grant_type":"client_credentials","client_id":%q,"timestamp":%s,"nonce":%q,"signature":%q}`,
		clientID, t, nonce, RequestSignature(clientID, t, nonce, []byte(secret)))
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

func (e *testEnv) accessToken(clientID, secret string) string {
	e.t.Helper()
	r := e.do("POST", "/api/v1/pt/oauth2/token", jsonHeader, tokenBody(clientID, secret, time.Now().Unix(), "n"+store.RandomToken(6)))
	if r.status != 200 {
		e.t.Fatalf("token: %d %s", r.status, r.raw)
	}
	return r.body["access_token"].(string)
}

func (e *testEnv) auth(bearer string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + bearer, "entity": e.entity.PublicKey}
}

// errorCodes lists the codes of an error envelope: the array form or the field-keyed form.
func errorCodes(t *testing.T, r response) []string {
	t.Helper()
	if r.body["success"] != false {
		t.Fatalf("want success false: %s", r.raw)
	}
	var codes []string
	switch errs := r.body["errors"].(type) {
	case []any:
		for _, item := range errs {
			codes = append(codes, item.(map[string]any)["code"].(string))
		}
	case map[string]any:
		for field, item := range errs {
			codes = append(codes, field+":"+item.(map[string]any)["code"].(string))
		}
	default:
		t.Fatalf("no errors in %s", r.raw)
	}
	return codes
}

func expectError(t *testing.T, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	codes := errorCodes(t, r)
	if len(codes) != 1 || codes[0] != code {
		t.Fatalf("codes %v, want [%s]: %s", codes, code, r.raw)
	}
}

func TestSignatureMatchesIncumbentWorkedExample(t *testing.T) {
	got := RequestSignature("demoapp", "1765812050", "aYb89a8yf10", []byte("qwerty"))
	want := "ZmYyOTNlZGM2M2YwMTM0ZmZhNDRhZTA0YTY5MDBlMmVlNDMwNjBhZmY2MjA0MTNiMDAzYzRlNWVlZmJlYTk0OQ=="
	if got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}

func TestTokenEndpoint(t *testing.T) {
	env := newTestEnv(t)
	disabled, disabledSecret := env.mustClient(ScopeDocumentRead)
	if err := env.st.DisableCredential(context.Background(), disabled.ID); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	env.srv.now = func() time.Time { return start } // the timestamps' skew is measured from the test's start
	now := start.Unix()
	id, secret := env.client.ClientID, env.secret
	form := func(v url.Values) string { return v.Encode() }
	formHeader := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}

	// The good request first: its nonce is then reused below.
	good := env.do("POST", "/api/v1/pt/oauth2/token", jsonHeader, tokenBody(id, secret, now, "abc123"))
	if good.status != 200 || good.body["token_type"] != "Bearer" || good.body["expires_in"] != float64(1800) ||
		good.body["scope"] != strings.Join(AllScopes, ",") || good.body["access_token"] == "" {
		t.Fatalf("good token request: %d %s", good.status, good.raw)
	}
	if good.header.Get("Cache-Control") != "no-store" {
		t.Errorf("token response must not be cached")
	}

	cases := []struct {
		name, contentType, body string
		status                  int
		code                    string
	}{
		{"reused nonce", "json", tokenBody(id, secret, now, "abc123"), 401, "e312"},
		{"stale timestamp", "json", tokenBody(id, secret, now-301, "n1"), 401, "e311"},
		{"future timestamp", "json", tokenBody(id, secret, now+301, "n2"), 401, "e311"},
		{"bad signature", "json", tokenBody(id, "wrong", now, "n3"), 401, "e310"},
		{"unknown client", "json", tokenBody("nobody", secret, now, "n4"), 401, "e310"},
		{"disabled client", "json", tokenBody(disabled.ClientID, disabledSecret, now, "n5"), 401, "e310"},
		{"wrong grant", "form", form(url.Values{"grant_type": {"password"}, "client_id": {id}, "timestamp": {"1"}, "nonce": {"a"}, "signature": {"x"}}), 400, "grant_type:e313"},
		{"nonce too long", "json", tokenBody(id, secret, now, strings.Repeat("a", 21)), 400, "nonce:e302"},
		{"nonce not alphanumeric", "json", tokenBody(id, secret, now, "a-b"), 400, "nonce:e302"},
		{"timestamp not a number", "form", form(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "timestamp": {"soon"}, "nonce": {"a"}, "signature": {"x"}}), 400, "timestamp:e302"},
		{"missing signature", "form", form(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "timestamp": {"1"}, "nonce": {"a"}}), 400, "signature:e301"},
		{"broken json", "json", `{"grant_type":`, 400, "body:e335"},
		{"text body", "text/plain", "hello", 415, "e333"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := jsonHeader
			switch c.contentType {
			case "form":
				h = formHeader
			case "text/plain":
				h = map[string]string{"Content-Type": "text/plain"}
			}
			expectError(t, env.do("POST", "/api/v1/pt/oauth2/token", h, c.body), c.status, c.code)
		})
	}

	t.Run("form body works too", func(t *testing.T) {
		ts := strconv.FormatInt(now, 10)
		v := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "timestamp": {ts}, "nonce": {"form1"},
			"signature": {RequestSignature(id, ts, "form1", []byte(secret))}}
		if r := env.do("POST", "/api/v1/en/oauth2/token", formHeader, form(v)); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	})
	t.Run("a rejected nonce is not burnt", func(t *testing.T) {
		expectError(t, env.do("POST", "/api/v1/pt/oauth2/token", jsonHeader, tokenBody(id, "wrong", now, "fresh1")), 401, "e310")
		if r := env.do("POST", "/api/v1/pt/oauth2/token", jsonHeader, tokenBody(id, secret, now, "fresh1")); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	})
	t.Run("narrowed scope", func(t *testing.T) {
		body := strings.TrimSuffix(tokenBody(id, secret, now, "scoped1"), "}") + `,"scope":"document_read"}`
		r := env.do("POST", "/api/v1/pt/oauth2/token", jsonHeader, body)
		if r.status != 200 || r.body["scope"] != "document_read" {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	})
}

func TestOAuthBearerAndEntityHeader(t *testing.T) {
	env := newTestEnv(t)
	other := env.mustEntity("Outra", "500000000") // the client is not authorised for it
	tok := env.accessToken(env.client.ClientID, env.secret)
	path := "/api/v1/pt/apps/external-connections"

	if r := env.do("GET", path, env.auth(tok), ""); r.status != 200 || r.body["success"] != "true" {
		t.Fatalf("authorised call: %d %s", r.status, r.raw)
	}
	for name, h := range map[string]map[string]string{
		"no header":         {},
		"no entity":         {"Authorization": "Bearer " + tok},
		"unknown entity":    {"Authorization": "Bearer " + tok, "entity": "nope"},
		"not authorised":    {"Authorization": "Bearer " + tok, "entity": other.PublicKey},
		"unknown token":     {"Authorization": "Bearer abc", "entity": env.entity.PublicKey},
		"not bearer scheme": {"Authorization": "Basic " + tok, "entity": env.entity.PublicKey},
	} {
		t.Run(name, func(t *testing.T) { expectError(t, env.do("GET", path, h, ""), 401, "e069") })
	}

	t.Run("expired token", func(t *testing.T) {
		env.st.SetClock(func() time.Time { return time.Now().Add(31 * time.Minute) })
		defer env.st.SetClock(time.Now)
		expectError(t, env.do("GET", path, env.auth(tok), ""), 401, "e069")
	})
	t.Run("disabled client loses its tokens", func(t *testing.T) {
		c, secret := env.mustClient(AllScopes...)
		tok := env.accessToken(c.ClientID, secret)
		env.st.DisableCredential(context.Background(), c.ID)
		expectError(t, env.do("GET", path, env.auth(tok), ""), 401, "e069")
	})
}

func TestLegacyPlatformTokenHandshake(t *testing.T) {
	env := newTestEnv(t)
	path := "/api/v1/pt/apps/external-connections"
	h := env.auth(env.token)

	expectError(t, env.do("GET", path, h, ""), 401, "e069") // no handshake yet
	r := env.do("POST", "/api/v1/pt/apps/authentications", h, "")
	if r.status != 200 || r.body["success"] != true || r.body["message"].(map[string]any)["code"] != "e123" {
		t.Fatalf("handshake: %d %s", r.status, r.raw)
	}
	if r := env.do("GET", path, h, ""); r.status != 200 {
		t.Fatalf("after handshake: %d %s", r.status, r.raw)
	}
	if r := env.do("DELETE", "/api/v1/pt/apps/authentications", h, ""); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.raw)
	}
	expectError(t, env.do("GET", path, h, ""), 401, "e069")

	other := env.mustEntity("Outra", "500000000")
	expectError(t, env.do("POST", "/api/v1/pt/apps/authentications",
		map[string]string{"Authorization": "Bearer " + env.token, "entity": other.PublicKey}, ""), 401, "e069")

	env.st.DisableCredential(context.Background(), env.tokenID)
	expectError(t, env.do("POST", "/api/v1/pt/apps/authentications", h, ""), 401, "e069")
}

func TestScopes(t *testing.T) {
	env := newTestEnv(t)
	c, secret := env.mustClient(ScopeDocumentRead)
	tok := env.accessToken(c.ClientID, secret)
	expectError(t, env.do("GET", "/api/v1/pt/apps/external-connections", env.auth(tok), ""), 403, "e320")
	expectError(t, env.do("GET", "/api/v1/en/apps/external-connections/1", env.auth(tok), ""), 403, "e320")
}

func TestRateLimit(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.RateLimit = RateLimitConfig{RequestsPerMinute: 5, BlockFor: 2 * time.Minute} })
	tok := env.accessToken(env.client.ClientID, env.secret) // the token request counts as one
	path := "/api/v1/pt/apps/external-connections"
	for i := 0; i < 4; i++ {
		if r := env.do("GET", path, env.auth(tok), ""); r.status != 200 {
			t.Fatalf("request %d: %d %s", i, r.status, r.raw)
		}
	}
	r := env.do("GET", path, env.auth(tok), "")
	expectError(t, r, 429, "e334")
	if ra, _ := strconv.Atoi(r.header.Get("Retry-After")); ra < 110 || ra > 120 {
		t.Errorf("Retry-After %q, want about 120", r.header.Get("Retry-After"))
	}
	// Blocked for the whole period, then allowed again.
	env.srv.now = func() time.Time { return time.Now().Add(90 * time.Second) }
	expectError(t, env.do("GET", path, env.auth(tok), ""), 429, "e334")
	env.srv.now = func() time.Time { return time.Now().Add(121 * time.Second) }
	if r := env.do("GET", path, env.auth(tok), ""); r.status != 200 {
		t.Fatalf("after the block: %d %s", r.status, r.raw)
	}
	// Another credential is not affected.
	c, secret := env.mustClient(AllScopes...)
	env.srv.now = time.Now
	if r := env.do("GET", path, env.auth(env.accessToken(c.ClientID, secret)), ""); r.status != 200 {
		t.Fatalf("other client: %d %s", r.status, r.raw)
	}
}

func TestGenericErrorsUseTheEnvelope(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.HTTP.BodyLimit = 1024 })
	expectError(t, env.do("GET", "/api/v1/pt/no/such/route", nil, ""), 404, "e330")
	expectError(t, env.do("GET", "/api/v1/pt/oauth2/token", nil, ""), 405, "e331")
	expectError(t, env.do("POST", "/api/v1/pt/oauth2/token", jsonHeader, strings.Repeat("x", 2048)), 413, "e332")
	expectError(t, env.do("POST", "/api/v1/pt/oauth2/token", map[string]string{"Content-Type": "text/xml"}, "<a/>"), 415, "e333")

	t.Run("languages differ only in text", func(t *testing.T) {
		pt := env.do("GET", "/api/v1/pt/apps/external-connections", nil, "")
		en := env.do("GET", "/api/v1/en/apps/external-connections", nil, "")
		ptItem := pt.body["errors"].([]any)[0].(map[string]any)
		enItem := en.body["errors"].([]any)[0].(map[string]any)
		if ptItem["code"] != enItem["code"] || ptItem["msg"] == enItem["msg"] {
			t.Fatalf("pt %v en %v", ptItem, enItem)
		}
	})
	t.Run("internal error hides the cause and names the request", func(t *testing.T) {
		env.st.Close()
		r := env.do("GET", "/api/v1/pt/apps/external-connections", env.auth(env.token), "")
		expectError(t, r, 500, "e399")
		item := r.body["errors"].([]any)[0].(map[string]any)
		if item["request_id"] == "" || item["request_id"] != r.header.Get("X-Request-Id") {
			t.Fatalf("request id %v, header %q", item["request_id"], r.header.Get("X-Request-Id"))
		}
		if strings.Contains(r.raw, "closed") || strings.Contains(r.raw, "sql") {
			t.Fatalf("internal detail leaked: %s", r.raw)
		}
		if h := env.do("GET", "/healthz", nil, ""); h.status != 503 {
			t.Fatalf("healthz with a closed database: %d", h.status)
		}
	})
}

func TestConnectionsAreVisibleOnlyToTheirParties(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	b := env.mustEntity("B", "500000000")
	c := env.mustEntity("C", "123456789")
	mine, err := env.st.CreateConnection(ctx, store.NewConnection{FromEntityID: env.entity.ID, ToEntityID: b.ID, State: store.ConnPending})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := env.st.CreateConnection(ctx, store.NewConnection{FromEntityID: b.ID, ToEntityID: c.ID})
	if err != nil {
		t.Fatal(err)
	}
	tok := env.accessToken(env.client.ClientID, env.secret)
	r := env.do("GET", "/api/v1/en/apps/external-connections", env.auth(tok), "")
	resp := r.body["response"].(map[string]any)
	if resp["total"] != float64(1) || resp["per_page"] != float64(15) {
		t.Fatalf("list: %s", r.raw)
	}
	item := resp["data"].([]any)[0].(map[string]any)
	if item["id"] != mine.PublicID || item["state_external_connection"].(map[string]any)["alias"] != "pending" ||
		item["receiver_entity"].(map[string]any)["nif"] != "500000000" {
		t.Fatalf("item: %v", item)
	}
	if r := env.do("GET", "/api/v1/pt/apps/external-connections/"+mine.PublicID, env.auth(tok), ""); r.status != 200 {
		t.Fatalf("own connection: %d %s", r.status, r.raw)
	}
	expectError(t, env.do("GET", "/api/v1/pt/apps/external-connections/"+theirs.PublicID, env.auth(tok), ""), 404, "e330")
	expectError(t, env.do("GET", "/api/v1/pt/apps/external-connections/x", env.auth(tok), ""), 404, "e330")
	expectError(t, env.do("GET", "/api/v1/pt/apps/external-connections?rows=1000", env.auth(tok), ""), 400, "rows:e302")
	expectError(t, env.do("GET", "/api/v1/pt/apps/external-connections?created_at_start=yesterday", env.auth(tok), ""), 400, "created_at_start:e302")
}

func TestHealthzAndMetrics(t *testing.T) {
	env := newTestEnv(t)
	if r := env.do("GET", "/healthz", nil, ""); r.status != 200 || r.body["database"] != "ok" {
		t.Fatalf("healthz: %d %s", r.status, r.raw)
	}
	env.do("GET", "/api/v1/pt/apps/external-connections", nil, "")
	env.srv.jobs.runOnce(job{name: "maintenance", run: env.srv.maintenance}, false)
	m := env.do("GET", "/metrics", nil, "")
	for _, want := range []string{
		`einvoice_http_requests_total{method="GET",route="/api/v1/pt/apps/external-connections",status="401"} 1`,
		`einvoice_http_request_duration_seconds_bucket{route="/api/v1/pt/apps/external-connections"`,
		`einvoice_job_runs_total{job="maintenance",outcome="ok"} 1`,
	} {
		if !strings.Contains(m.raw, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestJobRunnerRecoversAndNeverOverlaps(t *testing.T) {
	env := newTestEnv(t)
	r := env.srv.jobs
	r.runOnce(job{name: "boom", run: func(context.Context) error { panic("boom") }}, false)
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		r.runOnce(job{name: "slow", run: func(context.Context) error { close(started); <-release; return nil }}, false)
		close(done)
	}()
	<-started
	ran := false
	r.runOnce(job{name: "slow", run: func(context.Context) error { ran = true; return nil }}, false)
	close(release)
	<-done
	if ran {
		t.Fatal("a second run started while the first was under way")
	}
	m := env.do("GET", "/metrics", nil, "").raw
	for _, want := range []string{`einvoice_job_runs_total{job="boom",outcome="panic"} 1`, `einvoice_job_runs_total{job="slow",outcome="skipped"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
