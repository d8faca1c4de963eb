package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/store/pgtest"
)

// Several processes of one installation share one database; in these tests each is a Server on a
// store of its own, all on one database: one PostgreSQL database (with EINVOICE_TEST_POSTGRES), or
// one SQLite folder.

var sharedKey = []byte("test secret key 0123456789")

// sharedStores opens n stores on one new database.
func sharedStores(t *testing.T, n int) []*store.Store {
	t.Helper()
	dir, dsn := t.TempDir(), ""
	if pgtest.Server() != "" {
		dsn = pgtest.NewDatabase(t)
	}
	open := func() (*store.Store, error) {
		if dsn != "" {
			return store.OpenPostgres(context.Background(), dsn, sharedKey)
		}
		return store.Open(context.Background(), dir, sharedKey)
	}
	var out []*store.Store
	for range n {
		st, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		out = append(out, st)
	}
	return out
}

// sharedConfig runs the delivery jobs hourly: what they do in a test, a trigger made them do.
func sharedConfig() Config {
	cfg := testConfig()
	cfg.Webhooks = DefaultWebhooks()
	cfg.Webhooks.Interval = time.Hour
	cfg.Webhooks.Concurrency = 4
	cfg.Mail.Interval = time.Hour
	cfg.EDI.Interval, cfg.EDI.PollInterval = time.Hour, time.Hour
	cfg.Jobs.MaintenanceInterval = time.Hour
	return cfg
}

// run serves s until the test ends, and returns once it answers.
func run(t *testing.T, s *Server) {
	t.Helper()
	addr := serve(t, s)
	// Serving means its jobs are scheduled and it listens to the other processes.
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal(err)
		}
	}
}

// webhookReceiver counts the deliveries of each webhook-id, and those that arrived while another
// delivery of the same id was under way.
type webhookReceiver struct {
	*httptest.Server
	mu         sync.Mutex
	deliveries map[string]int
	underWay   map[string]bool
	overlaps   int
	arrived    chan struct{}
}

func newWebhookReceiver(t *testing.T) *webhookReceiver {
	r := &webhookReceiver{deliveries: map[string]int{}, underWay: map[string]bool{}, arrived: make(chan struct{}, 1000)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get("webhook-id")
		r.mu.Lock()
		if r.underWay[id] {
			r.overlaps++
		}
		r.underWay[id] = true
		r.deliveries[id]++
		r.mu.Unlock()
		time.Sleep(2 * time.Millisecond) // a receiver's work: time for a second delivery to overlap
		r.mu.Lock()
		delete(r.underWay, id)
		r.mu.Unlock()
		r.arrived <- struct{}{}
	}))
	t.Cleanup(r.Close)
	return r
}

// waitFor waits until n deliveries arrived, or fails after within.
func (r *webhookReceiver) waitFor(t *testing.T, n int, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for range n {
		select {
		case <-r.arrived:
		case <-deadline:
			t.Fatalf("fewer than %d deliveries within %v", n, within)
		}
	}
}

// sharedWebhook is an entity with a webhook pointing at url.
func sharedWebhook(t *testing.T, st *store.Store, url string) (store.Entity, store.Webhook) {
	t.Helper()
	ctx := context.Background()
	e, err := st.CreateEntity(ctx, store.NewEntity{Name: "Fornecedor", Country: "PT", NIF: "508025338"})
	if err != nil {
		t.Fatal(err)
	}
	hook, err := st.CreateWebhook(ctx, store.Webhook{EntityID: e.ID, URL: url, Key: "k", Events: []string{"document.received"}})
	if err != nil {
		t.Fatal(err)
	}
	return e, hook
}

// Two processes woken at once share the due events: each is delivered once, never by both at the
// same time.
func TestTwoServersDeliverEveryEventOnce(t *testing.T) {
	stores := sharedStores(t, 2)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, b := New(sharedConfig(), stores[0], log), New(sharedConfig(), stores[1], log)
	receiver := newWebhookReceiver(t)
	_, hook := sharedWebhook(t, stores[0], receiver.URL)
	const events = webhookBatch + 100 // more than one claim
	err := stores[0].Update(context.Background(), func(tx *store.Tx) error {
		for range events {
			if err := tx.Enqueue("webhook", hook.EntityID, 0, webhookPayload{WebhookID: hook.ID, Event: store.WebhookTestEvent}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	run(t, a)
	run(t, b)
	a.jobs.wake(jobWebhooks)
	b.jobs.wake(jobWebhooks)
	receiver.waitFor(t, events, 30*time.Second)
	time.Sleep(100 * time.Millisecond) // a second delivery of any would come now
	receiver.mu.Lock()
	defer receiver.mu.Unlock()
	if len(receiver.deliveries) != events || receiver.overlaps != 0 {
		t.Fatalf("%d events delivered of %d, %d deliveries overlapping another of the same event", len(receiver.deliveries), events, receiver.overlaps)
	}
	for id, n := range receiver.deliveries {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
}

// A commit on one process wakes the delivery job of the others at once, not at their next schedule.
func TestACommitWakesTheJobOfAnotherServer(t *testing.T) {
	if pgtest.Server() == "" {
		t.Skip("processes tell each other of work through PostgreSQL: set " + pgtest.EnvServer)
	}
	stores := sharedStores(t, 2)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// a serves no background jobs (as a process given to the API only); b runs them hourly.
	a, b := New(sharedConfig(), stores[0], log), New(sharedConfig(), stores[1], log)
	receiver := newWebhookReceiver(t)
	entity, hook := sharedWebhook(t, stores[0], receiver.URL)
	run(t, b)
	// b may not listen yet when it serves: a's commits are repeated until one is heard.
	for start := time.Now(); time.Since(start) < 10*time.Second; {
		if err := a.TestWebhook(context.Background(), entity.ID, hook.ID); err != nil {
			t.Fatal(err)
		}
		select {
		case <-receiver.arrived:
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
	t.Fatal("no delivery within 10s of a commit on another process")
}

// A singleton job runs on the process holding its lock only; the others skip their runs meanwhile.
func TestSingletonJobSkipsWhileAnotherProcessRunsIt(t *testing.T) {
	stores := sharedStores(t, 2)
	s := New(sharedConfig(), stores[0], slog.New(slog.NewTextHandler(io.Discard, nil)))
	runs := 0
	maintenance := job{name: "maintenance", singleton: true, run: func(context.Context) error { runs++; return nil }}
	release, ok, err := stores[1].TryLock(context.Background(), maintenance.name)
	if err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	s.jobs.runBody(maintenance)
	if want := map[bool]int{true: 0, false: 1}[stores[0].Shared()]; runs != want {
		t.Fatalf("%d runs while another process held the lock, on %s; want %d", runs, stores[0].Engine(), want)
	}
	release()
	s.jobs.runBody(maintenance)
	if runs == 0 {
		t.Fatal("no run once the lock was free")
	}
}
