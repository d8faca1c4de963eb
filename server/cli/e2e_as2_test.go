package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/store"
)

// Two installations of the real binary exchange documents over AS2 on loopback, wired only with the
// admin commands: each one's AS2 identity goes to the other as a partner, and a connection on each
// joins a test entity of its own with the other's through that partner. Their demo entities have the
// same tax IDs, so the documents travel between two extra test entities (issuerNIF at A, receiverNIF
// at B).
const (
	issuerNIF   = "509000002"
	receiverNIF = "510000002"
)

// as2Installation is one `serve --demo` with its own data folder, port, AS2 id and configuration.
type as2Installation struct {
	t      *testing.T
	name   string // its AS2 id, and its partner name at the other installation
	data   string
	config string
	port   int
	proc   *process
	creds  server.DemoCredentials
	c      client
	key    string // public key of its extra test entity
}

func newAS2Installation(t *testing.T, name string, port int, ediConfig string) *as2Installation {
	t.Helper()
	in := &as2Installation{t: t, name: name, data: t.TempDir(), port: port}
	in.config = filepath.Join(in.data, "einvoice.toml")
	config := fmt.Sprintf("[as2]\nid = %q\nrequests_per_minute = 0\n\n[rate_limit]\nrequests_per_minute = 0\n\n[edi]\n%s", name, ediConfig)
	if err := os.WriteFile(in.config, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	in.start()
	return in
}

func (in *as2Installation) url() string { return fmt.Sprintf("http://127.0.0.1:%d/as2", in.port) }

func (in *as2Installation) start() {
	in.t.Helper()
	in.proc, in.creds = startDemo(in.t, in.data, "--config", in.config, "--listen", "127.0.0.1:"+strconv.Itoa(in.port))
	in.c = client{in.t, in.creds.APIBase}
}

// kill is kill -9.
func (in *as2Installation) kill() {
	in.proc.cmd.Process.Kill()
	<-in.proc.done
}

// admin runs an admin command on the installation's data folder and decodes its JSON output.
func (in *as2Installation) admin(v any, args ...string) {
	in.t.Helper()
	cmd := einvoice(in.t, append(append([]string{"admin"}, args...), "--config", in.config, "--data", in.data, "--json")...)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		in.t.Fatalf("%s: admin %v: %v %s %s", in.name, args, err, out, stderr)
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			in.t.Fatalf("%s: admin %v: %v %s", in.name, args, err, out)
		}
	}
}

// headers are the API headers as the demo client acting for the extra test entity.
func (in *as2Installation) headers(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token, "entity": in.key, "Content-Type": "application/json"}
}

// wireAS2 starts A and B and joins them with the admin commands only.
func wireAS2(t *testing.T, portA, portB int, ediConfig string) (a, b *as2Installation) {
	t.Helper()
	a = newAS2Installation(t, "einvoice-a", portA, ediConfig)
	b = newAS2Installation(t, "einvoice-b", portB, ediConfig)
	for _, side := range []struct {
		in, other *as2Installation
		nif, to   string
	}{{a, b, issuerNIF, receiverNIF}, {b, a, receiverNIF, issuerNIF}} {
		var id server.AS2IdentityView
		side.other.admin(&id, "as2", "identity", "show")
		if id.AS2ID != side.other.name || !strings.Contains(id.Certificate, "BEGIN CERTIFICATE") {
			t.Fatalf("%s's identity: %+v", side.other.name, id)
		}
		pem := filepath.Join(side.in.data, side.other.name+".pem")
		if err := os.WriteFile(pem, []byte(id.Certificate), 0o600); err != nil {
			t.Fatal(err)
		}
		side.in.admin(nil, "as2", "partner", "create", "--name", side.other.name, "--as2-id", id.AS2ID, "--url", side.other.url(),
			"--cert", pem, "--sign", "sha256", "--cipher", "aes256", "--mdn", "async")
		var e struct {
			PublicKey string `json:"public_key"`
		}
		side.in.admin(&e, "entity", "create", "--name", "Teste "+side.in.name, "--nif", side.nif, "--test-entity")
		side.in.key = e.PublicKey
		side.in.admin(nil, "client", "authorize", "--client", side.in.creds.ClientID, "--nif", side.nif)
		var conn struct {
			ID int64 `json:"id"`
		}
		side.in.admin(&conn, "connection", "create", "--from", side.nif, "--to", side.to, "--partner", side.other.name, "--name", "Teste "+side.other.name)
		side.in.admin(nil, "connection", "approve", "--id", strconv.FormatInt(conn.ID, 10))
	}
	return a, b
}

func as2Invoice(number, price string) string {
	return fmt.Sprintf(`{"number": %q, "emission_date": "2026-11-20", "due_date": "2026-12-20", "type_document_fact": "FT",
		"supplier": {"street": "Rua A 1", "city": "Lisboa", "postal_zone": "1000-001"},
		"customer": {"number": %q, "name": "Teste", "street": "Rua B 2", "city": "Porto", "postal_zone": "4000-001"},
		"lines": [{"name": "Serviço", "quantity": 1, "price": %q, "taxes": [{"tax_percent": 23}]}]}`, number, receiverNIF, price)
}

// document is a document's state and EDI state as its installation's API shows them.
func (in *as2Installation) document(token, id string) (state, ediState string) {
	in.t.Helper()
	status, v := in.c.call("GET", "/apps/documents/"+id, in.headers(token), "")
	if status != 200 {
		in.t.Fatalf("%s: document %s: %d %v", in.name, id, status, v)
	}
	d := v["response"].(map[string]any)["data"].(map[string]any)
	return d["state_document"].(map[string]any)["alias"].(string), d["state_edi_document"].(map[string]any)["alias"].(string)
}

// documents lists the documents the extra test entity received (list "received") or issued
// ("issued"), by number.
func (in *as2Installation) documents(token, list string) map[string][]map[string]any {
	in.t.Helper()
	byNumber := map[string][]map[string]any{}
	for page := 1; ; page++ {
		status, v := in.c.call("GET", fmt.Sprintf("/apps/documents?document_type=%s&rows=100&page=%d", list, page), in.headers(token), "")
		if status != 200 {
			in.t.Fatalf("%s: %s documents: %d %v", in.name, list, status, v)
		}
		rows := v["response"].(map[string]any)["data"].([]any)
		for _, r := range rows {
			d := r.(map[string]any)
			byNumber[d["number"].(string)] = append(byNumber[d["number"].(string)], d)
		}
		if len(rows) < 100 {
			return byNumber
		}
	}
}

// settled waits until every EDI delivery of the installation is done (acknowledged by the partner).
func (in *as2Installation) settled() {
	in.t.Helper()
	waitFor(in.t, 60*time.Second, in.name+"'s EDI deliveries done", func() (bool, string) {
		var ds []store.EDIDelivery
		in.admin(&ds, "edi", "list", "--limit", "1000")
		for _, d := range ds {
			if d.State != "done" {
				return false, fmt.Sprintf("%+v", d)
			}
		}
		return true, ""
	})
}

// waitFor polls until ok holds, or fails after the timeout with what the last poll saw.
func waitFor(t *testing.T, timeout time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		done, seen := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %s", what, seen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// fastEDI makes retries and leases short enough for a test.
const fastEDI = "interval = \"500ms\"\ntimeout = \"5s\"\nlease = \"6s\"\nretry_schedule = [\"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\", \"1s\"]\n"

func TestEndToEndAS2BetweenInstallations(t *testing.T) {
	a, b := wireAS2(t, 19801, 19802, fastEDI)
	tokA, tokB := a.c.token(a.creds, "as2a"), b.c.token(b.creds, "as2b")

	status, v := a.c.call("POST", "/apps/documents", a.headers(tokA), as2Invoice("FT AS2/1", "100.00"))
	if status != 201 {
		t.Fatalf("issue at A: %d %v", status, v)
	}
	sentID := v["response"].(map[string]any)["data"].(map[string]any)["id"].(string)

	// B receives it and answers ACCEPTED; A's document is sent and accepted by the peer.
	var receivedID string
	waitFor(t, 20*time.Second, "B receives FT AS2/1", func() (bool, string) {
		got := b.documents(tokB, "received")["FT AS2/1"]
		if len(got) == 1 {
			receivedID = got[0]["id"].(string)
		}
		return len(got) == 1, fmt.Sprint(got)
	})
	wantState := func(what, state, ediState string) {
		t.Helper()
		waitFor(t, 20*time.Second, what, func() (bool, string) {
			s, e := a.document(tokA, sentID)
			return s == state && e == ediState, s + "/" + e
		})
	}
	wantState("A after the MDN and ACCEPTED", "sent", "accepted")

	// B's recipient asks for a correction: 14 goes back, and A may send a corrected version.
	if status, v := b.c.call("POST", "/apps/documents/"+receivedID+"/accepted", b.headers(tokB), `{"accepted": "0", "reason": "Falta o compromisso"}`); status != 200 {
		t.Fatalf("reject at B: %d %v", status, v)
	}
	wantState("A after 14", "rejected", "regularization")
	if status, v := a.c.call("POST", "/apps/documents", a.headers(tokA), as2Invoice("FT AS2/1", "90.00")); status != 200 {
		t.Fatalf("resend at A: %d %v", status, v)
	}
	wantState("A after the corrected version went", "sent", "accepted")
	waitFor(t, 20*time.Second, "B has the corrected version", func() (bool, string) {
		got := b.documents(tokB, "received")["FT AS2/1"]
		return len(got) == 1 && got[0]["state_document"].(map[string]any)["alias"] == "sent" && got[0]["id"] == receivedID, fmt.Sprint(got)
	})

	// B's recipient accepts: 11.
	if status, v := b.c.call("POST", "/apps/documents/"+receivedID+"/accepted", b.headers(tokB), `{"accepted": "1"}`); status != 200 {
		t.Fatalf("accept at B: %d %v", status, v)
	}
	wantState("A after 11", "accepted", "accepted")

	// The other way: B's entity issues to A's.
	back := strings.NewReplacer(receiverNIF, issuerNIF, "FT AS2/1", "FT BA/1").Replace(as2Invoice("FT AS2/1", "50.00"))
	status, v = b.c.call("POST", "/apps/documents", b.headers(tokB), back)
	if status != 201 {
		t.Fatalf("issue at B: %d %v", status, v)
	}
	backID := v["response"].(map[string]any)["data"].(map[string]any)["id"].(string)
	waitFor(t, 20*time.Second, "A receives FT BA/1", func() (bool, string) {
		got := a.documents(tokA, "received")["FT BA/1"]
		return len(got) == 1, fmt.Sprint(got)
	})
	waitFor(t, 20*time.Second, "B after A's ACCEPTED", func() (bool, string) {
		s, e := b.document(tokB, backID)
		return s == "sent" && e == "accepted", s + "/" + e
	})
	a.settled()
	b.settled()
}

// issueMany issues the documents number(i) for i in [from, to) at A, four at a time.
func issueMany(t *testing.T, a *as2Installation, token string, from, to int, number func(int) string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, to-from)
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				if status, raw := a.c.send("POST", "/apps/documents", a.headers(token), as2Invoice(number(i), "100.00")); status != 201 {
					errs <- fmt.Sprintf("issue %s: %d %s", number(i), status, raw)
				}
			}
		})
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// allDelivered waits until B has each of the n documents exactly once, and each is sent and
// ACCEPTED at A.
func allDelivered(t *testing.T, a, b *as2Installation, tokA, tokB string, n int, number func(int) string, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, "B's received documents", func() (bool, string) {
		status, v := b.c.call("GET", "/apps/documents?document_type=received&rows=1", b.headers(tokB), "")
		total, _ := v["response"].(map[string]any)["total"].(float64)
		return status == 200 && int(total) >= n, fmt.Sprint(status, " ", total)
	})
	waitFor(t, timeout, "every document at B once and accepted at A", func() (bool, string) {
		atB, atA := b.documents(tokB, "received"), a.documents(tokA, "issued")
		for i := range n {
			if got := atB[number(i)]; len(got) != 1 {
				return false, fmt.Sprintf("%s %d times at B", number(i), len(got))
			}
			d := atA[number(i)][0]
			if s, e := d["state_document"].(map[string]any)["alias"], d["state_edi_document"].(map[string]any)["alias"]; s != "sent" || e != "accepted" {
				return false, fmt.Sprintf("%s at A is %s/%s", number(i), s, e)
			}
		}
		return true, ""
	})
}

// Kill -9 of either installation in the middle of deliveries loses nothing and repeats nothing: every
// document is received once, and its ACCEPTED applied once. EINVOICE_CONFORMANCE=1 runs it.
func TestEndToEndAS2SurvivesKill(t *testing.T) {
	if os.Getenv("EINVOICE_CONFORMANCE") != "1" {
		t.Skip("EINVOICE_CONFORMANCE=1 runs it")
	}
	a, b := wireAS2(t, 19803, 19804, fastEDI)
	tokA, tokB := a.c.token(a.creds, "killa"), b.c.token(b.creds, "killb")
	const n = 50
	number := func(i int) string { return fmt.Sprintf("FT KILL/%d", i+1) }
	issueMany(t, a, tokA, 0, 15, number)
	b.kill()
	issueMany(t, a, tokA, 15, 25, number)
	b.start()
	issueMany(t, a, tokA, 25, 35, number)
	a.kill()
	a.start()
	issueMany(t, a, tokA, 35, n, number)
	allDelivered(t, a, b, tokA, tokB, n, number, 90*time.Second)
	a.settled()
	b.settled()
	if atB := b.documents(tokB, "received"); len(atB) != n {
		t.Errorf("B received %d numbers, want %d", len(atB), n)
	}
	for id, docs := range a.documents(tokA, "issued") {
		_, raw := a.c.send("GET", "/apps/documents/"+docs[0]["id"].(string)+"/history", a.headers(tokA), "")
		if got := strings.Count(string(raw), `"edi_status":"ACCEPTED"`); got != 1 {
			t.Errorf("%s: ACCEPTED applied %d times: %s", id, got, raw)
		}
	}
}

// TestEndToEndAS2Load times 1,000 documents from A to B over AS2, each answered with an asynchronous
// MDN and an ACCEPTED status message: once issued while B runs (issuing and delivering together), and
// once issued while B is stopped and delivered when it starts (the AS2 exchange alone).
// EINVOICE_AS2_LOAD=1 runs it.
func TestEndToEndAS2Load(t *testing.T) {
	if os.Getenv("EINVOICE_AS2_LOAD") != "1" {
		t.Skip("EINVOICE_AS2_LOAD=1 runs it")
	}
	// B stays stopped for a while: A tries again every 2 s, for long enough.
	patient := "interval = \"500ms\"\ntimeout = \"5s\"\nlease = \"6s\"\nretry_schedule = [" + strings.TrimSuffix(strings.Repeat(`"2s", `, 100), ", ") + "]\n"
	a, b := wireAS2(t, 19805, 19806, patient)
	tokA, tokB := a.c.token(a.creds, "loada"), b.c.token(b.creds, "loadb")
	const n = 1000
	loadavg := func() string { l, _ := os.ReadFile("/proc/loadavg"); return strings.TrimSpace(string(l)) }

	number := func(i int) string { return fmt.Sprintf("FT LOAD/%d", i+1) }
	start := time.Now()
	issueMany(t, a, tokA, 0, n, number)
	issued := time.Since(start)
	allDelivered(t, a, b, tokA, tokB, n, number, 5*time.Minute)
	t.Logf("%d documents issued at A while B runs: issued in %v, all received at B and ACCEPTED at A after %v; load average %s", n, issued, time.Since(start), loadavg())

	b.proc.stop(t)
	queued := func(i int) string { return fmt.Sprintf("FT QUEUED/%d", i+1) }
	issueMany(t, a, tokA, 0, n, queued)
	start = time.Now()
	b.start()
	allDelivered(t, a, b, tokA, tokB, n, queued, 5*time.Minute)
	t.Logf("%d documents queued at A, then B started: all received at B and ACCEPTED at A after %v; load average %s", n, time.Since(start), loadavg())
	a.settled()
	b.settled()
}
