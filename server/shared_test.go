package server

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/store/pgtest"
)

// twoProcesses is one installation served by two processes on one PostgreSQL database, as behind a
// load balancer: a and b share the entity, the client and the platform token, each through its own
// store and its own service.
func twoProcesses(t *testing.T, tweak ...func(*Config)) (a, b *testEnv) {
	t.Helper()
	if pgtest.Server() == "" {
		t.Skipf("%s is not set: two processes need a shared PostgreSQL database", pgtest.EnvServer)
	}
	cfg := testConfig()
	for _, f := range tweak {
		f(&cfg)
	}
	stores := sharedStores(t, 2)
	a = newTestEnvOn(t, cfg, stores[0])
	b = new(*a)
	b.st = stores[1]
	b.srv = New(cfg, b.st, a.srv.log)
	return a, b
}

// The rate limit of a credential counts its requests on both processes together.
func TestRateLimitHoldsAcrossProcesses(t *testing.T) {
	a, b := twoProcesses(t)
	path := "/api/v1/pt/apps/external-connections"
	envs := []*testEnv{a, b}
	tok := a.accessToken(a.client.ClientID, a.secret) // the token request counts as one
	for i := 1; i < 200; i++ {
		if r := envs[i%2].do("GET", path, a.auth(tok), ""); r.status != 200 {
			t.Fatalf("request %d: %d %s", i+1, r.status, r.raw)
		}
	}
	expectError(t, a.do("GET", path, a.auth(tok), ""), 429, "e334")
	expectError(t, b.do("GET", path, a.auth(tok), ""), 429, "e334")

	// Another credential has its own count. Eight clients of it at once, alternating between the
	// processes: exactly 200 of its requests get through (its token request among them).
	other, secret := a.mustClient(ScopeExternalConnections)
	tok = b.accessToken(other.ClientID, secret)
	const clients, each = 8, 30
	statuses := make(chan int, clients*each)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for j := range each {
				req := httptest.NewRequest("GET", path, nil)
				for k, v := range a.auth(tok) {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				envs[(i+j)%2].srv.Handler().ServeHTTP(rec, req)
				statuses <- rec.Code
			}
		})
	}
	wg.Wait()
	close(statuses)
	answers := map[int]int{}
	for status := range statuses {
		answers[status]++
	}
	if answers[200] != 199 || answers[429] != clients*each-199 {
		t.Fatalf("answers by status: %v", answers)
	}
}

// A token request's nonce, used on one process, is refused on the other.
func TestNonceReplayedToAnotherProcessIsRefused(t *testing.T) {
	a, b := twoProcesses(t)
	body := tokenBody(a.client.ClientID, a.secret, time.Now().Unix(), "n"+store.RandomToken(6))
	if r := a.do("POST", "/api/v1/en/oauth2/token", jsonHeader, body); r.status != 200 {
		t.Fatalf("first use: %d %s", r.status, r.raw)
	}
	expectError(t, b.do("POST", "/api/v1/en/oauth2/token", jsonHeader, body), 401, "e312")
}

// Failed authentications and failed sign-ins from one address add up across the processes.
func TestFailedAuthenticationsAddUpAcrossProcesses(t *testing.T) {
	a, b := twoProcesses(t, func(c *Config) { c.Auth.FailedAuthPerMinute, c.Portal.LoginFailures = 3, 3 })
	envs := []*testEnv{a, b}
	const token, attacker = "/api/v1/en/oauth2/token", "198.51.100.7:4000"
	for i := range 3 {
		body := tokenBody(a.client.ClientID, "guess", time.Now().Unix(), "n"+store.RandomToken(6))
		expectError(t, envs[i%2].from(attacker, "POST", token, jsonHeader, body), 401, "e310")
	}
	body := tokenBody(a.client.ClientID, "guess", time.Now().Unix(), "n"+store.RandomToken(6))
	expectThrottled(t, b.from(attacker, "POST", token, jsonHeader, body))
	// The address is now refused even with the right secret: at once where the block was counted,
	// and on the other process once what it read of the address is out of date.
	time.Sleep(store.BriefTTL)
	for _, env := range envs {
		body := tokenBody(a.client.ClientID, a.secret, time.Now().Unix(), "n"+store.RandomToken(6))
		expectThrottled(t, env.from(attacker, "POST", token, jsonHeader, body))
	}

	ctx := context.Background()
	if _, err := a.srv.CreateUser(ctx, NewUser{Username: "ana", Password: "long enough pw", Role: "operator", EntityID: a.entity.ID}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, err := envs[i%2].srv.Login(ctx, Login{Username: "ana", Password: "wrong password", Address: "10.0.0.2"})
		if !hasCode(err, CodeLoginFailed) {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	if _, err := b.srv.Login(ctx, Login{Username: "ana", Password: "wrong password", Address: "10.0.0.2"}); !hasCode(err, CodeAuthThrottled) {
		t.Fatalf("the failure past the limit: %v", err)
	}
	time.Sleep(store.BriefTTL)
	for _, env := range envs {
		if _, err := env.srv.Login(ctx, Login{Username: "ana", Password: "long enough pw", Address: "10.0.0.2"}); !hasCode(err, CodeAuthThrottled) {
			t.Fatalf("the address past the limit: %v", err)
		}
	}
}

// A portal session opened on one process is valid on the other, and ending it on one ends it on both.
func TestPortalSessionIsSharedByProcesses(t *testing.T) {
	a, b := twoProcesses(t)
	ctx := context.Background()
	u, err := a.srv.CreateUser(ctx, NewUser{Username: "ana", Password: "long enough pw", Role: "operator", EntityID: a.entity.ID})
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.srv.Login(ctx, Login{Username: "ana", Password: "long enough pw", Address: "10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := b.srv.SessionUser(ctx, s.Token); err != nil || got.ID != u.ID {
		t.Fatalf("the session on the other process: %+v %v", got, err)
	}
	if err := b.srv.EndSession(ctx, u.ID, s.Session.ID); err != nil {
		t.Fatal(err)
	}
	for _, env := range []*testEnv{a, b} {
		if _, _, err := env.srv.SessionUser(ctx, s.Token); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the ended session: %v", err)
		}
	}
}

// The AS2 receiver's requests per address count on both processes together.
func TestAS2RequestLimitHoldsAcrossProcesses(t *testing.T) {
	a, b := twoProcesses(t, func(c *Config) { c.AS2.RequestsPerMinute = 2 })
	const partner = "192.0.2.80:4000"
	for _, env := range []*testEnv{a, b} {
		if r := env.from(partner, "POST", "/as2", nil, "not a message"); r.status == 429 {
			t.Fatalf("within the limit: %d %s", r.status, r.raw)
		}
	}
	expectError(t, a.from(partner, "POST", "/as2", nil, "not a message"), 429, "e334")
}
