package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"einvoice/mailer/mailertest"
	"einvoice/server"
)

// The end-to-end tests run this test binary as einvoice: with runAsEinvoice set, TestMain runs the
// command line as main does, so no second binary is built (and linked) for them.
const runAsEinvoice = "EINVOICE_TEST_RUN_AS_EINVOICE"

func TestMain(m *testing.M) {
	if os.Getenv(runAsEinvoice) == "1" {
		os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// einvoice is a command of the einvoice binary (this one, run as einvoice).
func einvoice(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), runAsEinvoice+"=1")
	return cmd
}

// process is a running `einvoice serve`.
type process struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// startDemo starts the real binary on port 0 in the data folder and waits until it serves.
func startDemo(t *testing.T, data string, args ...string) (*process, server.DemoCredentials) {
	t.Helper()
	p := &process{stderr: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd = einvoice(t, append([]string{"serve", "--demo", "--data", data, "--listen", "127.0.0.1:0"}, args...)...)
	p.cmd.Env = append(p.cmd.Env, "EINVOICE_CONFIG=")
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.stderr.String(), "einvoice serving") {
		select {
		case err := <-p.done:
			t.Fatalf("server exited (%v):\n%s", err, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start:\n%s", p.stderr.String())
		}
	}
	creds, err := server.ReadDemoCredentials(data)
	if err != nil {
		t.Fatal(err)
	}
	return p, creds
}

// stop sends SIGTERM and expects a clean exit.
func (p *process) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, p.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

type client struct {
	t    *testing.T
	base string
}

func (c client) call(method, path string, header map[string]string, body string) (int, map[string]any) {
	c.t.Helper()
	status, raw := c.send(method, path, header, body)
	var v map[string]any
	json.Unmarshal(raw, &v)
	return status, v
}

// send makes one request and returns the status and the body as read.
func (c client) send(method, path string, header map[string]string, body string) (int, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func (c client) token(creds server.DemoCredentials, nonce string) string {
	c.t.Helper()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	body := fmt.Sprintf(`{"grant_type":"client_credentials","client_id":%q,"timestamp":%s,"nonce":%q,"signature":%q}`,
		creds.ClientID, ts, nonce, server.RequestSignature(creds.ClientID, ts, nonce, []byte(creds.ClientSecret)))
	status, v := c.call("POST", "/oauth2/token", map[string]string{"Content-Type": "application/json"}, body)
	if status != 200 {
		c.t.Fatalf("token: %d %v", status, v)
	}
	return v["access_token"].(string)
}

func TestEndToEndDemoInstallation(t *testing.T) {
	data := t.TempDir()
	p, creds := startDemo(t, data)
	if len(creds.Entities) != 2 || creds.ClientID == "" || creds.ClientSecret == "" || !strings.HasPrefix(creds.PlatformToken, "pt_") ||
		!strings.HasSuffix(creds.APIBase, "/api/v1/pt") {
		t.Fatalf("demo credentials: %+v", creds)
	}
	c := client{t, creds.APIBase}
	a, b := creds.Entities[0], creds.Entities[1]

	tok := c.token(creds, "first")
	as := func(bearer, key string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + bearer, "entity": key}
	}
	status, v := c.call("GET", "/apps/external-connections", as(tok, a.PublicKey), "")
	if status != 200 || v["response"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("connections: %d %v", status, v)
	}
	conn := v["response"].(map[string]any)["data"].([]any)[0].(map[string]any)
	if conn["state_external_connection"].(map[string]any)["alias"] != "approved" ||
		conn["receiver_entity"].(map[string]any)["nif"] != b.NIF {
		t.Fatalf("demo connection: %v", conn)
	}

	// Legacy: refused before the handshake, accepted after it.
	if status, _ := c.call("GET", "/apps/external-connections", as(creds.PlatformToken, b.PublicKey), ""); status != 401 {
		t.Fatalf("legacy before handshake: %d", status)
	}
	if status, v := c.call("POST", "/apps/authentications", as(creds.PlatformToken, b.PublicKey), ""); status != 200 ||
		v["message"].(map[string]any)["code"] != "e123" {
		t.Fatalf("handshake: %d %v", status, v)
	}

	// The admin command works on the same data folder while the server runs.
	out, err := einvoice(t, "admin", "entity", "list", "--data", data, "--json").Output()
	if err != nil || !strings.Contains(string(out), b.PublicKey) {
		t.Fatalf("admin while serving: %v %s", err, out)
	}
	p.stop(t)

	// A restart keeps the entities, the client, the platform token, the handshake and issued tokens.
	p2, again := startDemo(t, data)
	if again.ClientID != creds.ClientID || again.ClientSecret != creds.ClientSecret || again.PlatformToken != creds.PlatformToken ||
		again.Entities[0].PublicKey != a.PublicKey || again.Entities[1].PublicKey != b.PublicKey {
		t.Fatalf("restart changed the credentials:\n%+v\n%+v", creds, again)
	}
	c.base = again.APIBase
	if status, _ := c.call("GET", "/apps/external-connections", as(creds.PlatformToken, b.PublicKey), ""); status != 200 {
		t.Fatalf("legacy after restart: %d", status)
	}
	if status, _ := c.call("GET", "/apps/external-connections", as(tok, a.PublicKey), ""); status != 200 {
		t.Fatalf("access token after restart: %d", status)
	}
	status, v = c.call("GET", "/apps/external-connections", as(c.token(creds, "afterRestart"), a.PublicKey), "")
	if status != 200 || v["response"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("after restart: %d %v", status, v)
	}

	// kill -9 loses nothing committed: the connection declined now is declined after the restart.
	out, err = einvoice(t, "admin", "connection", "decline", "--id", "1", "--reason", "testing", "--data", data).CombinedOutput()
	if err != nil {
		t.Fatalf("decline: %v %s", err, out)
	}
	p2.cmd.Process.Kill()
	<-p2.done
	_, third := startDemo(t, data)
	c.base = third.APIBase
	status, v = c.call("GET", "/apps/external-connections/"+conn["id"].(string), as(c.token(creds, "afterKill"), a.PublicKey), "")
	if status != 200 || v["response"].(map[string]any)["data"].(map[string]any)["state_external_connection"].(map[string]any)["alias"] != "declined" {
		t.Fatalf("after kill -9: %d %v", status, v)
	}
}

// An issued document is durable once acknowledged: kill -9 right after the 201 loses nothing.
func TestEndToEndIssuingSurvivesKill(t *testing.T) {
	data := t.TempDir()
	p, creds := startDemo(t, data)
	c := client{t, creds.APIBase}
	a, b := creds.Entities[0], creds.Entities[1]
	tok := c.token(creds, "issue")
	as := func(key string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + tok, "entity": key, "Content-Type": "application/json"}
	}
	body := fmt.Sprintf(`{"number": "FT E2E/1", "emission_date": "2026-11-20", "due_date": "2026-12-20", "type_document_fact": "FT",
		"supplier": {"street": "Rua A 1", "city": "Lisboa", "postal_zone": "1000-001"},
		"customer": {"number": %q, "name": %q, "street": "Rua B 2", "city": "Porto", "postal_zone": "4000-001"},
		"lines": [{"name": "Serviço", "quantity": 1, "price": "100.00", "taxes": [{"tax_percent": 23}]}]}`, b.NIF, b.Name)
	status, v := c.call("POST", "/apps/documents", as(a.PublicKey), body)
	if status != 201 {
		t.Fatalf("create: %d %v", status, v)
	}
	id := v["response"].(map[string]any)["data"].(map[string]any)["id"].(string)
	p.cmd.Process.Kill()
	<-p.done

	_, again := startDemo(t, data)
	c.base = again.APIBase
	tok = c.token(creds, "afterKill")
	for _, key := range []string{a.PublicKey, b.PublicKey} {
		status, v = c.call("GET", "/apps/documents/"+id, as(key), "")
		d, _ := v["response"].(map[string]any)["data"].(map[string]any)
		if status != 200 || d["number"] != "FT E2E/1" || d["state_document"].(map[string]any)["alias"] != "sent" {
			t.Fatalf("after kill -9, as %s: %d %v", key, status, v)
		}
	}
	// In test mode a consumer can be reached by e-mail only.
	consumer := strings.Replace(strings.Replace(body, b.NIF, "123456789", 1), "FT E2E/1", "FT E2E/2", 1)
	if status, v := c.call("POST", "/apps/documents", as(a.PublicKey), consumer); status != 400 {
		t.Fatalf("consumer without e-mail: %d %v", status, v)
	}
	consumer = strings.Replace(consumer, `"type_document_fact"`, `"send_by_email": 1, "additional_emails": ["cliente@example.com"], "type_document_fact"`, 1)
	if status, v := c.call("POST", "/apps/documents", as(a.PublicKey), consumer); status != 201 {
		t.Fatalf("consumer by e-mail: %d %v", status, v)
	}
}

// Webhook events survive kill -9: events not yet delivered when the server dies are delivered after
// the restart, each at least once, with a stable webhook-id and a valid signature.
func TestEndToEndWebhooksSurviveKill(t *testing.T) {
	const key = "e2e receiver key 0123456789"
	var mu sync.Mutex
	seen := map[string]int{}
	bad := 0
	// After 20 events the receiver holds every request until the server has been killed, so that the
	// kill always lands in the middle of delivery.
	gate := make(chan struct{})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
		mu.Lock()
		held := len(seen) >= 20
		mu.Unlock()
		if held {
			select {
			case <-gate:
			case <-time.After(30 * time.Second):
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("webhook-signature") != server.WebhookSignature(key, id, ts, body) {
			bad++
			w.WriteHeader(401)
			return
		}
		seen[id]++
	}))
	defer recv.Close()
	distinct := func() int { mu.Lock(); defer mu.Unlock(); return len(seen) }

	data := t.TempDir()
	p, creds := startDemo(t, data)
	a, b := creds.Entities[0], creds.Entities[1]
	if out, err := einvoice(t, "admin", "webhook", "create", "--nif", b.NIF, "--url", recv.URL, "--key", key,
		"--events", "document.received", "--data", data).CombinedOutput(); err != nil {
		t.Fatalf("webhook create: %v %s", err, out)
	}
	c := client{t, creds.APIBase}
	tok := c.token(creds, "hooks")
	const n = 150
	for i := 0; i < n; i++ {
		body := dataInvoice(fmt.Sprintf("FT H/%d", i), b.NIF)
		if status, v := c.call("POST", "/apps/documents", map[string]string{"Authorization": "Bearer " + tok, "entity": a.PublicKey,
			"Content-Type": "application/json"}, body); status != 201 {
			t.Fatalf("create %d: %d %v", i, status, v)
		}
	}
	for distinct() < 20 {
		time.Sleep(10 * time.Millisecond)
	}
	p.cmd.Process.Kill()
	<-p.done
	before := distinct()
	close(gate)
	startDemo(t, data)
	deadline := time.Now().Add(30 * time.Second)
	for distinct() < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n || bad != 0 {
		t.Fatalf("%d of %d events delivered (%d before the kill), %d badly signed", len(seen), n, before, bad)
	}
	t.Logf("%d events before the kill, all %d after the restart", before, n)
}

// E-mail delivery through a real SMTP server survives a kill -9 in the middle: after the restart every
// message arrives, none more than twice (once more at most, for those sent but not yet recorded).
func TestEndToEndEmailsSurviveKill(t *testing.T) {
	smtpServer := mailertest.StartSMTP(t)
	release := smtpServer.HoldAfter(20) // the kill always lands in the middle of delivery
	data := t.TempDir()
	config := filepath.Join(t.TempDir(), "einvoice.toml")
	// The 21st message is held from the moment it is sent until the kill, which comes only after every
	// document is created: the SMTP timeout must outlast that, or the transport gives up on the held
	// message and sends it again on a new connection, and it arrives twice before the kill.
	os.WriteFile(config, []byte(fmt.Sprintf("[mail]\ntransport = \"smtp\"\ninterval = \"200ms\"\nbatch = 20\n"+
		"[mail.smtp]\nhost = %q\nport = %d\ntls = \"none\"\ntimeout = \"2m\"\n", smtpServer.Host, smtpServer.Port)), 0o600)
	p, creds := startDemo(t, data, "--config", config)
	a, b := creds.Entities[0], creds.Entities[1]
	c := client{t, creds.APIBase}
	tok := c.token(creds, "mails")
	const n = 60
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`{"number": "FT M/%d", "emission_date": "2026-11-20", "due_date": "2026-12-20", "type_document_fact": "FT", "send_by_email": 1,
			"supplier": {"street": "Rua A 1", "city": "Lisboa", "postal_zone": "1000-001"},
			"customer": {"number": %q, "name": "B", "street": "Rua B 2", "city": "Porto", "postal_zone": "4000-001", "email": "c%d@cliente.example"},
			"lines": [{"name": "Serviço", "quantity": 1, "price": "10.00", "taxes": [{"tax_percent": 23}]}]}`, i, b.NIF, i)
		if status, v := c.call("POST", "/apps/documents", map[string]string{"Authorization": "Bearer " + tok, "entity": a.PublicKey,
			"Content-Type": "application/json"}, body); status != 201 {
			t.Fatalf("create %d: %d %v", i, status, v)
		}
	}
	smtpServer.WaitFor(t, 20, 30*time.Second)
	time.Sleep(100 * time.Millisecond) // the 21st message is now held in DATA
	p.cmd.Process.Kill()
	<-p.done
	release()
	before := len(smtpServer.Received())
	startDemo(t, data, "--config", config)
	received := smtpServer.WaitFor(t, n, 60*time.Second)
	time.Sleep(500 * time.Millisecond) // anything sent twice has arrived too
	count := map[string]int{}
	for _, r := range smtpServer.Received() {
		msg, err := mail.ReadMessage(bytes.NewReader(r.Data))
		if err != nil {
			t.Fatal(err)
		}
		count[msg.Header.Get("Message-Id")]++
	}
	twice := 0
	for id, k := range count {
		if k > 2 {
			t.Errorf("%s arrived %d times", id, k)
		}
		if k == 2 {
			twice++
		}
	}
	if len(count) != n {
		t.Fatalf("%d distinct messages of %d", len(count), n)
	}
	t.Logf("%d messages before the kill, %d after the restart, %d of them a second time", before, len(received), twice)
}

// dataInvoice is the body of a data-method invoice of 12.30 EUR to the customer with that tax ID.
func dataInvoice(number, customerNIF string) string {
	return fmt.Sprintf(`{"number": %q, "emission_date": "2026-11-20", "due_date": "2026-12-20", "type_document_fact": "FT",
		"supplier": {"street": "Rua A 1", "city": "Lisboa", "postal_zone": "1000-001"},
		"customer": {"number": %q, "name": "B", "street": "Rua B 2", "city": "Porto", "postal_zone": "4000-001"},
		"lines": [{"name": "Serviço", "quantity": 1, "price": "10.00", "taxes": [{"tax_percent": 23}]}]}`, number, customerNIF)
}

// One data folder has one serve process: a second one exits at once with status 1, without serving,
// and the folder is free again once the first one stops.
func TestSecondServeOnOneFolderRefused(t *testing.T) {
	data := t.TempDir()
	first, _ := startDemo(t, data)
	second := einvoice(t, "serve", "--demo", "--data", data, "--listen", "127.0.0.1:0")
	second.Env = append(second.Env, "EINVOICE_CONFIG=")
	out, err := second.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || strings.Contains(string(out), "einvoice serving") {
		t.Fatalf("second serve on one folder: %v\n%s", err, out)
	}
	first.stop(t)
	again, _ := startDemo(t, data)
	again.stop(t)
}
