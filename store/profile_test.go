package store

import (
	"context"
	"errors"
	"testing"
)

func TestProfileAndNotifications(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	_, e, doc := twoEntitiesAndADocument(t, s)
	if p, err := s.ProfileOf(ctx, e.ID); err != nil || p != (Profile{}) {
		t.Fatalf("no profile yet: %+v %v", p, err)
	}
	want := Profile{Street: "Rua A", PostalZone: "1000-001", City: "Lisboa", Country: "PT", IBAN: "PT50000201231234567890154"}
	if _, err := s.SaveProfile(ctx, e.ID, "A, Lda.", want); err != nil {
		t.Fatal(err)
	}
	want.City = "Porto"
	if _, err := s.SaveProfile(ctx, e.ID, "A, Lda.", want); err != nil {
		t.Fatal(err)
	}
	got, err := s.ProfileOf(ctx, e.ID)
	if err != nil || got.City != "Porto" || got.IBAN != want.IBAN || got.UpdatedAt == "" {
		t.Fatalf("profile %+v %v", got, err)
	}
	if e2, _ := s.EntityByID(ctx, e.ID); e2.Name != "A, Lda." {
		t.Fatalf("name %q", e2.Name)
	}
	if _, err := s.SaveProfile(ctx, 999, "X", want); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown entity: %v", err)
	}

	// A notice is queued only for the events the entity asked for.
	d := doc.ID
	queue := func(event string) {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.EnqueueNotice(e.ID, d, event, "why") }); err != nil {
			t.Fatal(err)
		}
	}
	queue(NoticeReceived)
	if due, _ := s.ClaimOutbox(ctx, "notice", "9999", "9999", 10); len(due) != 0 {
		t.Fatalf("queued without settings: %v", due)
	}
	if err := s.SaveNotifications(ctx, e.ID, Notifications{OnRejected: true, CC: []string{"a@x.pt", "b@x.pt"}}); err != nil {
		t.Fatal(err)
	}
	queue(NoticeReceived)
	queue(NoticeRejected)
	due, err := s.ClaimOutbox(ctx, "notice", "9999", "9999", 10)
	if err != nil || len(due) != 1 || string(due[0].Payload) != `{"event":"rejected","reason":"why"}` || due[0].DocumentID != d {
		t.Fatalf("due %+v %v", due, err)
	}

	for _, u := range []NewUser{{Username: "ana@a.pt"}, {Username: "rui"}, {Username: "eva@a.pt"}, {Username: "out@b.pt"}} {
		u.PasswordHash = "x"
		created, err := s.CreateUser(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if u.Username != "out@b.pt" {
			if err := s.SetMembership(ctx, created.ID, e.ID, RoleViewer); err != nil {
				t.Fatal(err)
			}
		}
		if u.Username == "eva@a.pt" {
			s.SetUserDisabled(ctx, created.ID, true)
		}
	}
	to, cc, err := s.NoticeAddresses(ctx, e.ID)
	if err != nil || len(to) != 1 || to[0].Address != "ana@a.pt" || len(cc) != 2 {
		t.Fatalf("addresses %v %v %v", to, cc, err)
	}
	if users, err := s.EntityUsers(ctx, e.ID); err != nil || len(users) != 3 {
		t.Fatalf("entity users %v %v", users, err)
	}
}

func TestWebhookSettings(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	e, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"})
	w, err := s.CreateWebhook(ctx, Webhook{EntityID: e.ID, URL: "https://a.example/h", Key: "0123456789abcdef", Events: []string{"document.received"}})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := s.UpdateWebhook(ctx, w.ID, "https://b.example/h", "", []string{"document.received", "document.rejected"})
	if err != nil || w2.URL != "https://b.example/h" || w2.Key != w.Key || len(w2.Events) != 2 {
		t.Fatalf("update keeping the key: %+v %v", w2, err)
	}
	if w2, _ = s.UpdateWebhook(ctx, w.ID, w2.URL, "fedcba9876543210", w2.Events); w2.Key != "fedcba9876543210" {
		t.Fatalf("new key %q", w2.Key)
	}
	if _, err := s.UpdateWebhook(ctx, 999, "https://x", "", nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown webhook: %v", err)
	}
	if err := s.EnqueueWebhookTest(ctx, w2); err != nil {
		t.Fatal(err)
	}
	due, _ := s.ClaimOutbox(ctx, "webhook", "9999", "9999", 10)
	if len(due) != 1 || due[0].DocumentID != 0 || due[0].EntityID != e.ID {
		t.Fatalf("test event %+v", due)
	}
	if failing, err := s.FailingWebhooks(ctx, e.ID); err != nil || len(failing) != 0 {
		t.Fatalf("failing before any attempt: %+v %v", failing, err)
	}
	err = s.RecordOutbox(ctx, []OutboxResult{{ID: due[0].ID, Failed: true, Error: "HTTP 500",
		Attempt: &WebhookAttempt{WebhookID: w.ID, Attempt: 1, StatusCode: 500, LatencyMS: 7, Error: "HTTP 500"}}})
	if err != nil {
		t.Fatal(err)
	}
	log, err := s.WebhookDeliveries(ctx, e.ID, 10)
	if err != nil || len(log) != 1 || log[0].Event != WebhookTestEvent || log[0].StatusCode != 500 || log[0].URL != w2.URL {
		t.Fatalf("log %+v %v", log, err)
	}
	if other, _ := s.WebhookDeliveries(ctx, e.ID+1, 10); len(other) != 0 {
		t.Fatalf("another entity's log: %v", other)
	}
	if all, _ := s.WebhookDeliveries(ctx, 0, 10); len(all) != 1 || all[0].EntityID != e.ID {
		t.Fatalf("every entity's log: %+v", all)
	}
	a, entityID, err := s.WebhookAttemptByID(ctx, log[0].ID)
	if err != nil || entityID != e.ID || a.OutboxID != due[0].ID {
		t.Fatalf("attempt %+v %d %v", a, entityID, err)
	}
	if err := s.RequeueOutbox(ctx, a.OutboxID); err != nil {
		t.Fatal(err)
	}
	if failing, err := s.FailingWebhooks(ctx, e.ID); err != nil || len(failing) != 1 || failing[0].ID != w.ID {
		t.Fatalf("failing after HTTP 500: %+v %v", failing, err)
	}
	if failing, _ := s.FailingWebhooks(ctx, e.ID+1); len(failing) != 0 {
		t.Fatalf("another entity's failing webhooks: %+v", failing)
	}
	if due, _ := s.ClaimOutbox(ctx, "webhook", "9999", "9999", 10); len(due) != 1 || due[0].Attempts != 1 {
		t.Fatalf("requeued %+v", due)
	}
	err = s.RecordOutbox(ctx, []OutboxResult{{ID: a.OutboxID, Done: true,
		Attempt: &WebhookAttempt{WebhookID: w.ID, Attempt: 2, StatusCode: 204, LatencyMS: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	if failing, _ := s.FailingWebhooks(ctx, e.ID); len(failing) != 0 {
		t.Fatalf("failing after a 204: %+v", failing)
	}
}
