package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/store"
)

// from sends a request as if from the client address addr.
func (e *testEnv) from(addr, method, path string, header map[string]string, body string) response {
	e.t.Helper()
	return e.doWith(func(r *http.Request) { r.RemoteAddr = addr }, method, path, header, body)
}

func (e *testEnv) doWith(tweak func(*http.Request), method, path string, header map[string]string, body string) response {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	tweak(req)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	r := response{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		r.body = map[string]any{}
		if err := json.Unmarshal(rec.Body.Bytes(), &r.body); err != nil {
			e.t.Fatalf("not JSON: %s", r.raw)
		}
	}
	return r
}

func expectThrottled(t *testing.T, r response) {
	t.Helper()
	expectError(t, r, 429, "e368")
	if wait, _ := strconv.Atoi(r.header.Get("Retry-After")); wait < 1 || wait > 60 {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
}

func TestFailedTokenRequestsAreThrottled(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.Auth.FailedAuthPerMinute = 3 })
	id, secret := env.client.ClientID, env.secret
	const token = "/api/v1/en/oauth2/token"
	attacker, legit, other := "198.51.100.7:4000", "203.0.113.9:5000", "192.0.2.44:6000"
	nonce := 0
	request := func(addr, clientID, key string) response {
		nonce++
		return env.from(addr, "POST", token, jsonHeader, tokenBody(clientID, key, time.Now().Unix(), "n"+strconv.Itoa(nonce)))
	}

	for range 3 {
		expectError(t, request(attacker, id, "guess"), 401, "e310")
	}
	expectThrottled(t, request(attacker, id, "guess"))
	// The address is refused even with the right secret, and for any client id ...
	expectThrottled(t, request(attacker, id, secret))
	expectThrottled(t, request(attacker, "someone-else", "guess"))
	// ... while the client itself, from its own address, still gets its token; failing requests for
	// its id are refused from any address.
	if r := request(legit, id, secret); r.status != 200 {
		t.Fatalf("legitimate client: %d %s", r.status, r.raw)
	}
	expectThrottled(t, request(other, id, "guess"))
	// Unknown client ids count like bad signatures.
	fresh := "192.0.2.45:6000"
	for range 3 {
		expectError(t, request(fresh, "nobody", "guess"), 401, "e310")
	}
	expectThrottled(t, request(fresh, "nobody2", "guess"))

	// A minute later the address may try again.
	env.srv.now = func() time.Time { return time.Now().Add(61 * time.Second) }
	if r := request(attacker, id, secret); r.status != 200 {
		t.Fatalf("after the minute: %d %s", r.status, r.raw)
	}
}

func TestUnknownBearerTokensAreThrottled(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.Auth.FailedAuthPerMinute = 3 })
	path := "/api/v1/en/apps/external-connections"
	good := env.auth(env.accessToken(env.client.ClientID, env.secret))
	attacker, legit := "198.51.100.7:4000", "[2001:db8:1:2::5]:443"
	for i, bearer := range []string{"guess1", store.PlatformTokenPrefix + "guess2", "guess3"} {
		expectError(t, env.from(attacker, "GET", path, map[string]string{"Authorization": "Bearer " + bearer, "entity": env.entity.PublicKey}, ""), 401, "e069")
		if i == 0 {
			// A missing or malformed header is no guess, and does not count.
			expectError(t, env.from(attacker, "GET", path, nil, ""), 401, "e069")
		}
	}
	expectThrottled(t, env.from(attacker, "GET", path, map[string]string{"Authorization": "Bearer guess4"}, ""))
	expectThrottled(t, env.from(attacker, "GET", path, good, ""))
	if r := env.from(legit, "GET", path, good, ""); r.status != 200 {
		t.Fatalf("another address: %d %s", r.status, r.raw)
	}
	// An IPv6 client counts by its /64: another address in it shares its failures.
	for range 3 {
		expectError(t, env.from("[2001:db8:9:9::1]:1", "GET", path, map[string]string{"Authorization": "Bearer x"}, ""), 401, "e069")
	}
	expectThrottled(t, env.from("[2001:db8:9:9::2]:1", "GET", path, map[string]string{"Authorization": "Bearer x"}, ""))
	expectThrottled(t, env.from("[2001:db8:9:9::ffff]:1", "GET", path, good, ""))
}

func TestClientAddressBehindTrustedProxies(t *testing.T) {
	env := newTestEnv(t, func(c *Config) {
		c.Auth.FailedAuthPerMinute = 1
		c.HTTP.TrustedProxies = []string{"10.0.0.0/8", "192.0.2.1"}
	})
	path := "/api/v1/en/apps/external-connections"
	good := env.auth(env.accessToken(env.client.ClientID, env.secret))
	bad := map[string]string{"Authorization": "Bearer guess"}
	via := func(peer, forwarded string, h map[string]string) response {
		return env.doWith(func(r *http.Request) {
			r.RemoteAddr = peer
			if forwarded != "" {
				r.Header.Set("X-Forwarded-For", forwarded)
			}
		}, "GET", path, h, "")
	}
	// Behind the proxies, the client is the nearest address they did not add.
	expectError(t, via("10.1.1.1:80", "6.6.6.6, 198.51.100.7, 192.0.2.1", bad), 401, "e069")
	expectThrottled(t, via("10.2.2.2:80", "198.51.100.7", bad))
	if r := via("10.1.1.1:80", "203.0.113.9", good); r.status != 200 {
		t.Fatalf("another client behind the proxy: %d %s", r.status, r.raw)
	}
	// An untrusted peer's X-Forwarded-For is not believed.
	expectError(t, via("203.0.113.50:80", "1.1.1.1", bad), 401, "e069")
	expectThrottled(t, via("203.0.113.50:80", "2.2.2.2", bad))
	expectThrottled(t, via("203.0.113.50:80", "3.3.3.3", good))

	if _, err := ParseTrustedProxies([]string{"10.0.0.0/8", "::1", "nonsense"}); err == nil {
		t.Fatal("a bad entry is accepted")
	}
}

func TestTokenAndHandshakeWorkflow(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req := TokenRequest{GrantType: "client_credentials", ClientID: env.client.ClientID, Timestamp: ts, Nonce: "wf1",
		Signature: RequestSignature(env.client.ClientID, ts, "wf1", []byte(env.secret)), Scope: "document_read states_read", Address: "192.0.2.1"}
	tok, err := env.srv.IssueToken(ctx, req)
	if err != nil || tok.AccessToken == "" || tok.TTL != 30*time.Minute || !slices.Equal(tok.Scopes, []string{ScopeDocumentRead, ScopeStatesRead}) {
		t.Fatalf("%+v %v", tok, err)
	}
	if _, err := env.srv.IssueToken(ctx, req); codeFor(err) != CodeNonceReused {
		t.Fatalf("reused nonce: %v", err)
	}

	cred, err := env.st.CredentialByPlatformToken(ctx, env.token)
	if err != nil {
		t.Fatal(err)
	}
	handshake := func() bool {
		_, done, err := env.st.Authorization(ctx, cred.ID, env.entity.ID)
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	if err := env.srv.Handshake(ctx, cred, env.entity.ID); err != nil || !handshake() {
		t.Fatalf("handshake: %v", err)
	}
	if err := env.srv.RevokeHandshake(ctx, cred, env.entity.ID); err != nil || handshake() {
		t.Fatalf("revoke: %v", err)
	}
}

func TestMetricsCanBeProtected(t *testing.T) {
	t.Run("token", func(t *testing.T) {
		env := newTestEnv(t, func(c *Config) { c.HTTP.MetricsToken = "s3cret-metrics-token" })
		if r := env.do("GET", "/metrics", nil, ""); r.status != 401 || r.header.Get("WWW-Authenticate") == "" {
			t.Fatalf("without the token: %d", r.status)
		}
		if r := env.do("GET", "/metrics", map[string]string{"Authorization": "Bearer s3cret-metrics-tokeN"}, ""); r.status != 401 {
			t.Fatalf("with a wrong token: %d", r.status)
		}
		r := env.do("GET", "/metrics", map[string]string{"Authorization": "Bearer s3cret-metrics-token"}, "")
		if r.status != 200 || !strings.Contains(r.raw, "einvoice_http_requests_total") {
			t.Fatalf("with the token: %d", r.status)
		}
	})
	t.Run("separate listener", func(t *testing.T) {
		free, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		metricsAddr := free.Addr().String()
		free.Close()
		env := newTestEnv(t, func(c *Config) { c.HTTP.MetricsListen = metricsAddr; c.Webhooks = DefaultWebhooks() })
		addr := serve(t, env.srv)
		get := func(url string) int {
			for range 50 { // the metrics listener opens as Run starts
				resp, err := http.Get(url)
				if err == nil {
					resp.Body.Close()
					return resp.StatusCode
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Fatalf("%s does not answer", url)
			return 0
		}
		if status := get("http://" + metricsAddr + "/metrics"); status != 200 {
			t.Fatalf("metrics listener: %d", status)
		}
		if status := get("http://" + addr + "/metrics"); status != 404 {
			t.Fatalf("main listener: %d", status)
		}
	})
}
