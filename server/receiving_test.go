package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/ubl/ubltest"
)

func (e *docEnv) issue(number string) string {
	e.t.Helper()
	r := e.post("/documents", e.entity, "application/json", invoiceJSON(number, e.customer.NIF, ""))
	if r.status != 201 {
		e.t.Fatalf("issue %s: %d %s", number, r.status, r.raw)
	}
	return data(r)["id"].(string)
}

// queued claims, as the delivery jobs do, every row of an outbox kind still to be delivered, due now
// or later, leased or not, under a lease that ends at once: the jobs still take them.
func (e *docEnv) queued(kind string) []store.OutboxItem {
	e.t.Helper()
	now, _ := e.srv.claimTimes()
	items, err := e.st.ClaimOutbox(context.Background(), kind, "9999", now, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return items
}

func (e *docEnv) inbox(query string) (int, []any) {
	e.t.Helper()
	r := e.do("GET", "/api/v1/en/apps/documents"+query, e.as(e.customer, ""), "")
	if r.status != 200 {
		e.t.Fatalf("inbox: %d %s", r.status, r.raw)
	}
	resp := r.body["response"].(map[string]any)
	return int(resp["total"].(float64)), resp["data"].([]any)
}

func TestReceiveImportAcceptRejectAndResend(t *testing.T) {
	env := newDocEnv(t)
	first, second := env.issue("FT R/1"), env.issue("FT R/2")
	if total, items := env.inbox(""); total != 2 || items[0].(map[string]any)["id"] != second ||
		items[0].(map[string]any)["xml_url"] == nil || alias(items[0].(map[string]any)["type_document"]) != "received" {
		t.Fatalf("inbox: %d %v", total, items)
	}
	// Only the recipient may import or accept.
	expectError(t, env.post("/documents/"+first, env.entity, "", ""), 404, "e330")
	expectError(t, env.post("/documents/"+first+"/accepted", env.entity, "application/json", `{"accepted": 1}`), 404, "e330")

	imp := env.post("/documents/"+first, env.customer, "", "")
	if imp.status != 200 || imp.body["message"].(map[string]any)["code"] != "s303" {
		t.Fatalf("import: %d %s", imp.status, imp.raw)
	}
	if again := env.post("/documents/"+first, env.customer, "", ""); again.status != 200 {
		t.Fatalf("import again: %d %s", again.status, again.raw)
	}
	if total, _ := env.inbox(""); total != 1 {
		t.Fatalf("after import: %d", total)
	}

	expectError(t, env.post("/documents/"+second+"/accepted", env.customer, "application/json", `{"accepted": "0"}`), 400, "reason:e301")
	expectError(t, env.post("/documents/"+second+"/accepted", env.customer, "application/json", `{"accepted": "maybe"}`), 400, "accepted:e302")
	rej := env.post("/documents/"+second+"/accepted", env.customer, "application/x-www-form-urlencoded", "accepted=false&reason=Falta+o+compromisso")
	if rej.status != 200 || rej.body["message"].(map[string]any)["code"] != "s304" {
		t.Fatalf("reject: %d %s", rej.status, rej.raw)
	}
	expectError(t, env.post("/documents/"+second+"/accepted", env.customer, "application/json", `{"accepted": true}`), 400, "accepted:e345")
	expectError(t, env.post("/documents/"+second, env.customer, "", ""), 400, "document:e344")
	if total, _ := env.inbox(""); total != 0 {
		t.Fatalf("a rejected document stays listed: %d", total)
	}
	doc := data(env.do("GET", "/api/v1/en/apps/documents/"+second, env.as(env.entity, ""), ""))
	reasons := doc["reasons"].([]any)
	if alias(doc["state_document"]) != "rejected" || alias(doc["state_edi_document"]) != "regularization" || len(reasons) != 1 ||
		reasons[0].(map[string]any)["reason"] != "Falta o compromisso" {
		t.Fatalf("issuer's view after rejection: %v", doc)
	}

	// The issuer corrects it and sends it again; it is back in the inbox and the history shows both.
	resend := env.post("/documents", env.entity, "application/json", invoiceJSON("FT R/2", env.customer.NIF, `, "notes": ["compromisso CO-2026/17"]`))
	if resend.status != 200 || alias(data(resend)["state_document"]) != "sent" {
		t.Fatalf("resend: %d %s", resend.status, resend.raw)
	}
	if total, _ := env.inbox(""); total != 1 {
		t.Fatalf("after resend: %d", total)
	}
	h := env.do("GET", "/api/v1/en/apps/documents/"+second+"/history", env.as(env.customer, ""), "")
	var states []string
	for _, e := range h.body["response"].(map[string]any)["data"].([]any) {
		m := e.(map[string]any)
		if m["kind"] == "state" {
			states = append(states, alias(m["state"]))
		} else {
			states = append(states, m["kind"].(string))
		}
	}
	if strings.Join(states, ",") != "sent,rejected,edit,sent" {
		t.Fatalf("history %v", states)
	}
	acc := env.post("/documents/"+first+"/accepted", env.customer, "application/json", `{"accepted": 1}`)
	if acc.status != 200 || alias(data(env.do("GET", "/api/v1/en/apps/documents/"+first, env.as(env.entity, ""), ""))["state_document"]) != "accepted" {
		t.Fatalf("accept: %d %s", acc.status, acc.raw)
	}
}

func TestInboxFilters(t *testing.T) {
	env := newDocEnv(t)
	env.issue("FT F/1")
	env.issue("FT F/2")
	cases := map[string]int{
		"?number=FT+F%2F1": 1, "?supplier_nif=PT" + env.entity.NIF: 2, "?supplier_nif=999999990": 0,
		"?type_document_fact=FT": 2, "?type_document_fact=NC": 0, "?emission_date_start=2026-11-20&emission_date_end=2026-11-20": 2,
		"?emission_date_start=2026-11-21": 0, "?rows=1&page=2": 2,
	}
	for q, want := range cases {
		if total, _ := env.inbox(q); total != want {
			t.Errorf("%s: %d, want %d", q, total, want)
		}
	}
	expectError(t, env.do("GET", "/api/v1/en/apps/documents?emission_date_start=20-11-2026", env.as(env.customer, ""), ""), 400, "emission_date_start:e302")
	expectError(t, env.do("GET", "/api/v1/en/apps/documents?rows=1000", env.as(env.customer, ""), ""), 400, "rows:e302")
}

func TestProcessStates(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	id := env.issue("FT P/1")
	expectError(t, env.do("GET", "/api/v1/en/apps/processstates", env.as(env.customer, ""), ""), 400, "process_states:e346")
	yes := true
	env.st.UpdateEntity(ctx, env.customer.ID, store.EntityChanges{ProcessStatesEnabled: &yes})
	env.st.CreateProcessState(ctx, store.ProcessState{EntityID: env.customer.ID, Code: "PAGO", Name: "Pago"})
	list := env.do("GET", "/api/v1/en/apps/processstates", env.as(env.customer, ""), "")
	items, _ := list.body["response"].(map[string]any)["data"].([]any)
	if list.status != 200 || len(items) != 1 || items[0].(map[string]any)["identification_code"] != "PAGO" {
		t.Fatalf("list: %d %s", list.status, list.raw)
	}
	put := func(body string) response {
		return env.do("PUT", "/api/v1/en/apps/documents/"+id+"/processstates", env.as(env.customer, "application/json"), body)
	}
	expectError(t, put(`{"identification_code": "NOPE"}`), 400, "identification_code:e302")
	expectError(t, put(`{}`), 400, "identification_code:e301")
	if r := put(`{"identification_code": "PAGO"}`); r.status != 200 || r.body["message"].(map[string]any)["code"] != "s305" {
		t.Fatalf("put: %d %s", r.status, r.raw)
	}
	doc := data(env.do("GET", "/api/v1/en/apps/documents/"+id, env.as(env.customer, ""), ""))
	if doc["process_state"].(map[string]any)["identification_code"] != "PAGO" {
		t.Fatalf("document %v", doc["process_state"])
	}
	h := env.do("GET", "/api/v1/en/apps/documents/"+id+"/history", env.as(env.customer, ""), "").raw
	if !strings.Contains(h, `"kind":"process_state"`) {
		t.Fatalf("history %s", h)
	}
	// The issuer cannot set the recipient's process states.
	expectError(t, env.do("PUT", "/api/v1/en/apps/documents/"+id+"/processstates", env.as(env.entity, "application/json"), `{"identification_code": "PAGO"}`), 400, "process_states:e346")
}

// receiver is a webhook endpoint that checks what it gets and counts deliveries by webhook-id.
type receiver struct {
	t      *testing.T
	key    string
	mu     sync.Mutex
	seen   map[string]int
	bodies []webhookBody
	fail   int // answer 500 to this many requests first
	got    chan string
	srv    *httptest.Server
}

func newReceiver(t *testing.T, key string) *receiver {
	r := &receiver{t: t, key: key, seen: map[string]int{}, got: make(chan string, 100000)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	checkWebhookCall(r.t, req, body)
	id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
	if req.Header.Get("Authorization") != "Bearer "+r.key || req.Header.Get("webhook-signature") != WebhookSignature(r.key, id, ts, body) {
		r.t.Errorf("bad authentication on %s", id)
		w.WriteHeader(401)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail > 0 {
		r.fail--
		w.WriteHeader(500)
		return
	}
	var b webhookBody
	json.Unmarshal(body, &b)
	r.seen[id]++
	r.bodies = append(r.bodies, b)
	r.got <- id
}

func (e *docEnv) startJobs(webhooks WebhooksConfig) {
	e.srv.cfg.Webhooks = webhooks
	if err := e.srv.scheduleJobs(); err != nil {
		e.t.Fatal(err)
	}
	e.srv.jobs.start()
	e.t.Cleanup(e.srv.jobs.stop)
}

func fastWebhooks() WebhooksConfig {
	return WebhooksConfig{Interval: time.Hour, Timeout: 5 * time.Second, Concurrency: 4,
		RetrySchedule: []time.Duration{time.Millisecond, time.Millisecond}}
}

func TestWebhooksDeliverSignedEventsQuickly(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	recv := newReceiver(t, "recipient key 0123456789")
	issuerRecv := newReceiver(t, "whsec_aXNzdWVyIGtleSAwMTIzNDU2Nzg5")
	env.st.CreateWebhook(ctx, store.Webhook{EntityID: env.customer.ID, URL: recv.srv.URL, Key: recv.key, Events: []string{eventReceived}})
	env.st.CreateWebhook(ctx, store.Webhook{EntityID: env.entity.ID, URL: issuerRecv.srv.URL, Key: issuerRecv.key, Events: []string{eventStateChanged}})
	// The schedule is an hour: only the wake-up on new work can deliver within the test.
	env.startJobs(fastWebhooks())

	start := time.Now()
	id := env.issue("FT W/1")
	for _, r := range []*receiver{recv, issuerRecv} {
		select {
		case <-r.got:
		case <-time.After(2 * time.Second):
			t.Fatalf("no delivery within 2 s")
		}
	}
	t.Logf("delivered in %v", time.Since(start))
	b := recv.bodies[0]
	doc := b.Data.(map[string]any)
	if b.Event != eventReceived || !strings.HasPrefix(b.EventID, "evt_") || doc["id"] != id || alias(doc["type_document"]) != "received" {
		t.Fatalf("body %+v", b)
	}
	if ib := issuerRecv.bodies[0]; ib.Event != eventStateChanged || alias(ib.Data.(map[string]any)["state_document"]) != "sent" {
		t.Fatalf("issuer body %+v", ib)
	}
	// The download links work without credentials, and only with their token.
	xmlURL := strings.TrimPrefix(doc["xml_url"].(string), env.srv.baseURL())
	if r := env.do("GET", xmlURL, nil, ""); r.status != 200 || !strings.Contains(r.raw, "FT W/1") {
		t.Fatalf("public xml: %d", r.status)
	}
	expectError(t, env.do("GET", strings.Replace(xmlURL, "token=", "token=x", 1), nil, ""), 404, "e330")

	// Rejection reaches the issuer too.
	env.post("/documents/"+id+"/accepted", env.customer, "application/json", `{"accepted": 0, "reason": "errado"}`)
	select {
	case <-issuerRecv.got:
	case <-time.After(2 * time.Second):
		t.Fatal("rejection not delivered")
	}
	if s := issuerRecv.bodies[1].Data.(map[string]any)["state_document"]; alias(s) != "rejected" {
		t.Fatalf("state %v", s)
	}
}

func TestWebhooksRetryThenGiveUp(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	recv := newReceiver(t, "recipient key 0123456789")
	recv.fail = 2
	hook, _ := env.st.CreateWebhook(ctx, store.Webhook{EntityID: env.customer.ID, URL: recv.srv.URL, Key: recv.key, Events: []string{eventReceived}})
	env.srv.cfg.Webhooks = fastWebhooks()
	env.issue("FT W/2")
	for i := 0; i < 3; i++ {
		time.Sleep(5 * time.Millisecond)
		if err := env.srv.deliverWebhooks(ctx); err != nil {
			t.Fatal(err)
		}
	}
	attempts, _ := env.st.WebhookAttempts(ctx, hook.ID, 10)
	if len(recv.seen) != 1 || len(attempts) != 3 || attempts[0].StatusCode != 200 || attempts[2].StatusCode != 500 {
		t.Fatalf("seen %v attempts %+v", recv.seen, attempts)
	}
	// A receiver that never answers well is given up after the schedule.
	recv.mu.Lock()
	recv.fail = 1 << 30
	recv.mu.Unlock()
	env.issue("FT W/3")
	for i := 0; i < 5; i++ {
		time.Sleep(5 * time.Millisecond)
		env.srv.deliverWebhooks(ctx)
	}
	attempts, _ = env.st.WebhookAttempts(ctx, hook.ID, 10)
	if len(attempts) != 6 {
		t.Fatalf("%d attempts, want 3 + 3", len(attempts))
	}
	if due := env.queued("webhook"); len(due) != 0 {
		t.Fatalf("still due: %v", due)
	}
}

// Many events reach the receiver once each: ten thousand with the long tests on
// (EINVOICE_CONFORMANCE=1, as .ci/run sets), a few hundred otherwise.
func TestWebhooksManyEventsEachOnce(t *testing.T) {
	n := 300
	if ubltest.Conformance() {
		n = 10000
	}
	env := newDocEnv(t)
	ctx := context.Background()
	recv := newReceiver(t, "recipient key 0123456789")
	env.st.CreateWebhook(ctx, store.Webhook{EntityID: env.customer.ID, URL: recv.srv.URL, Key: recv.key, Events: []string{eventReceived}})
	env.srv.cfg.Webhooks = fastWebhooks()
	docID := env.rowID(store.KindDocument, env.issue("FT T/1"))
	err := env.st.Update(ctx, func(tx *store.Tx) error {
		for i := 1; i < n; i++ {
			if err := tx.EnqueueWebhooks(env.customer.ID, docID, eventReceived, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := env.srv.deliverWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events in %v", n, time.Since(start))
	if len(recv.seen) != n {
		t.Fatalf("%d distinct events, want %d", len(recv.seen), n)
	}
	for id, k := range recv.seen {
		if k != 1 {
			t.Fatalf("%s delivered %d times", id, k)
		}
	}
}

func TestTriggerRunsAgainWhenWorkArrivesDuringARun(t *testing.T) {
	env := newTestEnv(t)
	r := env.srv.jobs
	var mu sync.Mutex
	runs := 0
	release := make(chan struct{})
	r.every(time.Hour, job{name: "w", run: func(context.Context) error {
		mu.Lock()
		runs++
		first := runs == 1
		mu.Unlock()
		if first {
			<-release
		}
		return nil
	}})
	r.trigger("w")
	time.Sleep(20 * time.Millisecond)
	r.trigger("w") // arrives during the first run
	close(release)
	r.wg.Wait()
	for i := 0; i < 100; i++ {
		mu.Lock()
		done := runs == 2
		mu.Unlock()
		if done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d runs, want 2", runs)
}
