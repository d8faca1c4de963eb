package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/store/pgtest"
)

// Two einvoice processes on one PostgreSQL work as one installation. These tests run the real binary
// twice on a fresh database of the server named by EINVOICE_TEST_POSTGRES, when EINVOICE_CLUSTER=1.

// clusterKey is the secret key both processes share, as an installation's processes must.
const clusterKey = "cluster test secret key 0123456789"

// clusterPorts are the two processes' ports: a process restarted after kill -9 comes back on its own
// port, as behind a load balancer. They are below Linux's range of ephemeral ports (32768–60999), so
// no outgoing connection of a test running alongside can hold one (the AS2 tests use 19801–19806).
var clusterPorts = [2]int{19810, 19811}

func requireCluster(t *testing.T) {
	t.Helper()
	if pgtest.Server() == "" || os.Getenv("EINVOICE_CLUSTER") != "1" {
		t.Skip("runs with EINVOICE_TEST_POSTGRES set and EINVOICE_CLUSTER=1")
	}
}

// clusterConfig writes the configuration both processes read: PostgreSQL at dsn, the shared key, and
// the sections in extra.
func clusterConfig(t *testing.T, dsn, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "einvoice.toml")
	conf := fmt.Sprintf("[storage]\ndriver = \"postgres\"\ndsn = %q\n[security]\nsecret_key = %q\n%s", dsn, clusterKey, extra)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startMember starts process i of the installation (serve --demo on its own port; the demo set-up
// finds what the first start created). The processes are started one after the other.
func startMember(t *testing.T, data, config string, i int) (*process, server.DemoCredentials) {
	t.Helper()
	return startDemo(t, data, "--config", config, "--listen", "127.0.0.1:"+strconv.Itoa(clusterPorts[i]))
}

func memberAPI(i int) string { return fmt.Sprintf("http://127.0.0.1:%d/api/v1/pt", clusterPorts[i]) }

// webhookReceiver records every delivery: event id, the document it is about, and whether a delivery
// of the same event arrived while another was still being answered (two processes working one event).
// While held, it answers nothing; a delivery whose sender is gone when it is answered (killed
// meanwhile) does not count as delivered.
type webhookReceiver struct {
	key      string
	held     chan struct{} // closed: answering
	hold     sync.Once
	mu       sync.Mutex
	inFlight map[string]int
	waiting  map[string]int    // the senders' addresses of the deliveries being held, with their count
	docOf    map[string]string // event id → the document id its payload carries
	times    map[string]int    // event id → deliveries
	overlaps []string
	unstable []string // event ids that came with two different documents
	bad      int      // deliveries with a wrong signature
	gone     int      // deliveries whose sender was gone when they were answered
}

func newWebhookReceiver(key string) *webhookReceiver {
	rc := &webhookReceiver{key: key, held: make(chan struct{}), inFlight: map[string]int{}, waiting: map[string]int{}, docOf: map[string]string{}, times: map[string]int{}}
	close(rc.held)
	return rc
}

// holdUntil holds the deliveries from now until release is closed.
func (rc *webhookReceiver) holdUntil(release <-chan struct{}) {
	rc.hold.Do(func() {
		rc.mu.Lock()
		rc.held = make(chan struct{})
		held := rc.held
		rc.mu.Unlock()
		go func() { <-release; close(held) }()
	})
}

func (rc *webhookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	if r.Header.Get("webhook-signature") != server.WebhookSignature(rc.key, id, ts, body) {
		rc.mu.Lock()
		rc.bad++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var event struct {
		EventID string `json:"event_id"`
		Data    struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	json.Unmarshal(body, &event)
	rc.mu.Lock()
	if rc.inFlight[id] > 0 {
		rc.overlaps = append(rc.overlaps, id)
	}
	rc.inFlight[id]++
	if doc, seen := rc.docOf[id]; seen && doc != event.Data.ID || event.EventID != id {
		rc.unstable = append(rc.unstable, id)
	}
	rc.docOf[id] = event.Data.ID
	held := rc.held
	rc.waiting[r.RemoteAddr]++
	rc.mu.Unlock()
	// Held a moment, so that a second process posting the same event meanwhile is seen as an overlap.
	time.Sleep(30 * time.Millisecond)
	select {
	case <-held:
	case <-r.Context().Done(): // the sender is gone
	case <-time.After(30 * time.Second):
	}
	rc.mu.Lock()
	rc.inFlight[id]--
	if rc.waiting[r.RemoteAddr]--; rc.waiting[r.RemoteAddr] == 0 {
		delete(rc.waiting, r.RemoteAddr)
	}
	if r.Context().Err() == nil {
		rc.times[id]++
	} else {
		rc.gone++
	}
	rc.mu.Unlock()
}

// goneCount is how many deliveries were dropped by their sender before they were answered.
func (rc *webhookReceiver) goneCount() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.gone
}

// deliveringProcess is which of the processes has a delivery under way (held), or -1.
func (rc *webhookReceiver) deliveringProcess(procs [2]*process) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for addr := range rc.waiting {
		if _, port, err := net.SplitHostPort(addr); err == nil {
			if p, err := strconv.Atoi(port); err == nil {
				if i := connectionOwner(p, procs); i >= 0 {
					return i
				}
			}
		}
	}
	return -1
}

// connectionOwner is which of the processes holds the TCP socket bound to the local port, or -1
// (Linux: the socket's inode from /proc/net/tcp, looked for among each process's descriptors).
func connectionOwner(port int, procs [2]*process) int {
	inode := ""
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, _ := os.ReadFile(table)
		for _, line := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(line); len(f) > 9 && strings.HasSuffix(f[1], fmt.Sprintf(":%04X", port)) {
				inode = f[9]
			}
		}
	}
	if inode == "" {
		return -1
	}
	for i, p := range procs {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid))
		for _, fd := range fds {
			if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", p.cmd.Process.Pid, fd.Name())); target == "socket:["+inode+"]" {
				return i
			}
		}
	}
	return -1
}

// delivered is the set of document ids that some event was delivered for, with each one's event id.
func (rc *webhookReceiver) delivered() map[string]string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	byDoc := map[string]string{}
	for id, doc := range rc.docOf {
		if rc.times[id] > 0 {
			byDoc[doc] = id
		}
	}
	return byDoc
}

// clusterClient calls the API of either process; unlike client, a failed call is an error to handle,
// not the end of the test, since one process is killed under the load.
type clusterClient struct {
	http  *http.Client
	token string
	// entity is the public key the calls are made for.
	entity string
}

// call makes one request to process i and returns the status and the decoded body; err is a
// transport error (the process is down, or died while answering).
func (c clusterClient) call(i int, method, path, contentType, body string) (int, map[string]any, error) {
	req, err := http.NewRequest(method, memberAPI(i)+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("entity", c.entity)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	var v map[string]any
	json.Unmarshal(raw, &v)
	return resp.StatusCode, v, nil
}

// createdID is the id of the document a creation made: from a 201, or from the e200 that answers a
// retried creation whose first answer was lost (the document exists already; its id is in the details).
func createdID(status int, v map[string]any) (string, bool) {
	switch status {
	case http.StatusCreated, http.StatusOK:
		d, _ := v["response"].(map[string]any)["data"].(map[string]any)
		id, _ := d["id"].(string)
		return id, id != ""
	case http.StatusBadRequest:
		errs, _ := v["errors"].(map[string]any)
		number, _ := errs["number"].(map[string]any)
		details, _ := number["details"].(map[string]any)
		id, _ := details["id"].(string)
		return id, number["code"] == "e200" && id != ""
	}
	return "", false
}

// Two processes on one PostgreSQL, 8 clients alternating between them, a webhook for every received
// document; one process is killed (SIGKILL) in the middle of the load and restarted. Every creation
// is retried on the other process until it has a definite answer, as an integrator would. At the end
// every acknowledged document exists exactly once, every document's event was delivered at least once
// under one id, and no event was delivered by both processes at once. The webhook receiver holds its
// answers from shortly before the kill until after it, and the process killed is one with a delivery
// under way: it dies with events claimed, delivered when its claim's lease ends (the jobs' timeout
// and a minute).
func TestClusterSurvivesKill(t *testing.T) {
	requireCluster(t)
	const hookKey = "cluster receiver key 0123456789"
	rc := newWebhookReceiver(hookKey)
	recv := httptest.NewServer(rc)
	defer recv.Close()

	dsn := pgtest.NewDatabase(t)
	config := clusterConfig(t, dsn, "[rate_limit]\nrequests_per_minute = 0\n"+
		"[jobs]\ntimeout = \"5s\"\n"+
		"[webhooks]\ninterval = \"200ms\"\nconcurrency = 4\nretry_schedule = [\"1s\", \"1s\", \"2s\", \"2s\", \"5s\", \"5s\", \"10s\"]\n")
	data := t.TempDir()
	procs := [2]*process{}
	var creds server.DemoCredentials
	procs[0], creds = startMember(t, data, config, 0)
	procs[1], _ = startMember(t, data, config, 1)
	a, b := creds.Entities[0], creds.Entities[1]
	if out, err := einvoice(t, "admin", "webhook", "create", "--nif", b.NIF, "--url", recv.URL, "--key", hookKey,
		"--events", "document.received", "--config", config, "--data", data).CombinedOutput(); err != nil {
		t.Fatalf("webhook create: %v %s", err, out)
	}
	token := client{t, memberAPI(0)}.token(creds, "cluster")
	issuer := clusterClient{http: &http.Client{Timeout: 30 * time.Second}, token: token, entity: a.PublicKey}

	const clients, perClient, holdAfter, killAfter = 8, 60, 80, 120
	release := make(chan struct{})
	var (
		mu      sync.Mutex
		created = map[string]string{} // number → id, every creation acknowledged
		retried atomic.Int64
		acked   atomic.Int64
	)
	killed := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for k := range perClient {
				number := fmt.Sprintf("FT C%d/%d", c, k)
				target := (c + k) % 2 // alternating between the processes
				for attempt := 0; ; attempt++ {
					if attempt == 50 {
						t.Errorf("%s: no definite answer after %d attempts", number, attempt)
						return
					}
					status, v, err := issuer.call(target, "POST", "/apps/documents", "application/json", dataInvoice(number, b.NIF))
					if id, ok := createdID(status, v); err == nil && ok {
						mu.Lock()
						created[number] = id
						mu.Unlock()
						switch acked.Add(1) {
						case holdAfter:
							rc.holdUntil(release)
						case killAfter:
							close(killed)
						}
						break
					}
					if err == nil && status < 500 {
						t.Errorf("%s on process %d: %d %v", number, target, status, v)
						return
					}
					retried.Add(1)
					target = 1 - target
					time.Sleep(100 * time.Millisecond)
				}
			}
		})
	}
	<-killed
	victim := -1
	for wait := time.Now().Add(20 * time.Second); victim < 0 && time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		victim = rc.deliveringProcess(procs)
	}
	if victim < 0 {
		close(release)
		t.Fatal("no process is delivering a webhook event")
	}
	procs[victim].cmd.Process.Kill()
	<-procs[victim].done
	for wait := time.Now().Add(5 * time.Second); rc.goneCount() == 0 && time.Now().Before(wait); time.Sleep(10 * time.Millisecond) {
	}
	close(release)
	time.Sleep(time.Second) // the load goes on against the other process alone
	procs[victim], _ = startMember(t, data, config, victim)
	restarted := time.Now()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if len(created) != clients*perClient {
		t.Fatalf("%d documents acknowledged of %d", len(created), clients*perClient)
	}

	// Every acknowledged document exists exactly once, and no other document exists.
	recipient := issuer
	recipient.entity = b.PublicKey
	k := 0
	for number, id := range created {
		k++
		status, v, err := recipient.call(k%2, "GET", "/apps/documents?number="+strings.ReplaceAll(number, " ", "%20"), "", "")
		if err != nil {
			t.Fatal(err)
		}
		r, _ := v["response"].(map[string]any)
		list, _ := r["data"].([]any)
		if status != 200 || r["total"] != float64(1) || len(list) != 1 || list[0].(map[string]any)["id"] != id {
			t.Fatalf("%s (acknowledged as %s): %d %v", number, id, status, v)
		}
	}
	status, v, err := recipient.call(0, "GET", "/apps/documents", "", "")
	if err != nil || status != 200 || v["response"].(map[string]any)["total"] != float64(len(created)) {
		t.Fatalf("received list: %v %d %v, want %d documents", err, status, v["response"], len(created))
	}

	// Every document's event is delivered, under one id.
	deadline := time.Now().Add(100 * time.Second)
	missing := func() []string {
		delivered := rc.delivered()
		var m []string
		for number, id := range created {
			if delivered[id] == "" {
				m = append(m, number)
			}
		}
		return m
	}
	for len(missing()) > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	allDelivered := time.Since(restarted).Round(time.Second)
	time.Sleep(time.Second) // a delivery made twice has arrived too
	if m := missing(); len(m) > 0 {
		t.Errorf("%d documents' events never delivered, e.g. %s", len(m), m[0])
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	twice := 0
	for _, n := range rc.times {
		if n > 1 {
			twice++
		}
	}
	t.Logf("%d documents (%d creations retried), %d events, %d of them delivered more than once; %d deliveries under way when process %d was killed, every event delivered %s after the restart",
		len(created), retried.Load(), len(rc.times), twice, rc.gone, victim, allDelivered)
	if len(rc.docOf) != len(created) || len(rc.unstable) > 0 || rc.bad > 0 {
		t.Errorf("%d event ids for %d documents, %d ids carrying two documents, %d badly signed deliveries", len(rc.docOf), len(created), len(rc.unstable), rc.bad)
	}
	if rc.gone == 0 {
		t.Errorf("no delivery was under way when process %d was killed", victim)
	}
	if len(rc.overlaps) > 0 {
		t.Errorf("%d deliveries of an event while the same event was being delivered (e.g. %s)", len(rc.overlaps), rc.overlaps[0])
	}
}

// The rate limit and the seen nonces are the installation's, not a process's: requests alternating
// between the two processes are refused once their sum passes the limit, and a nonce used on one
// process is refused on the other.
func TestClusterSharesLimitsAndNonces(t *testing.T) {
	requireCluster(t)
	const limit = 20
	dsn := pgtest.NewDatabase(t)
	config := clusterConfig(t, dsn, fmt.Sprintf("[rate_limit]\nrequests_per_minute = %d\nblock_for = \"2m\"\n", limit))
	data := t.TempDir()
	_, creds := startMember(t, data, config, 0)
	startMember(t, data, config, 1)

	// The token request of the spec, sent to process 0, then sent again as it was to process 1.
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce := "clusterNonce1"
	grant := fmt.Sprintf(`{"grant_type":"client_credentials","client_id":%q,"timestamp":%s,"nonce":%q,"signature":%q}`,
		creds.ClientID, ts, nonce, server.RequestSignature(creds.ClientID, ts, nonce, []byte(creds.ClientSecret)))
	tokenReq := func(i int, body string) (int, map[string]any) {
		resp, err := http.Post(memberAPI(i)+"/oauth2/token", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		raw, _ := io.ReadAll(resp.Body)
		json.NewDecoder(bytes.NewReader(raw)).Decode(&v)
		return resp.StatusCode, v
	}
	status, v := tokenReq(0, grant)
	if status != 200 {
		t.Fatalf("token on process 0: %d %v", status, v)
	}
	token := v["access_token"].(string)
	status, v = tokenReq(1, grant)
	if codes := errorCodesOf(v); status != 401 || len(codes) != 1 || codes[0] != "e312" {
		t.Fatalf("the same nonce on process 1: %d %v, want 401 e312", status, v)
	}
	// A fresh nonce is accepted there: the refusal was the nonce's.
	if tok := (client{t, memberAPI(1)}).token(creds, "clusterNonce2"); tok == "" {
		t.Fatal("no token on process 1")
	}
	const tokenRequests = 3 // each counted against the client's limit

	// Requests alternating between the processes: together they get no more than the limit.
	c := clusterClient{http: &http.Client{Timeout: 30 * time.Second}, token: token, entity: creds.Entities[0].PublicKey}
	accepted, refused := 0, [2]int{}
	for k := range 2 * limit {
		status, v, err := c.call(k%2, "GET", "/apps/external-connections", "", "")
		switch {
		case err != nil:
			t.Fatal(err)
		case status == 200:
			accepted++
		case status == http.StatusTooManyRequests:
			if codes := errorCodesOf(v); len(codes) != 1 || codes[0] != "e334" {
				t.Fatalf("request %d: 429 %v, want e334", k, v)
			}
			refused[k%2]++
		default:
			t.Fatalf("request %d: %d %v", k, status, v)
		}
	}
	if accepted+tokenRequests > limit || accepted == 0 || refused[0] == 0 || refused[1] == 0 {
		t.Fatalf("%d requests accepted (and %d token requests) with a limit of %d a minute; refused by each process: %v",
			accepted, tokenRequests, limit, refused)
	}
}

// errorCodesOf is the codes of an error answer's "errors", a list or a map by field.
func errorCodesOf(v map[string]any) []string {
	var codes []string
	switch errs := v["errors"].(type) {
	case []any:
		for _, item := range errs {
			code, _ := item.(map[string]any)["code"].(string)
			codes = append(codes, code)
		}
	case map[string]any:
		for _, item := range errs {
			code, _ := item.(map[string]any)["code"].(string)
			codes = append(codes, code)
		}
	}
	return codes
}
