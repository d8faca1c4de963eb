package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestAS2IdentityIsKeptOnceAndEncrypted(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	if _, err := s.AS2IdentityOf(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("before the first: %v", err)
	}
	first, err := s.SaveAS2Identity(ctx, AS2Identity{AS2ID: "first", Key: []byte("key one"), Certificate: []byte("cert one")}, false)
	if err != nil || first.AS2ID != "first" || string(first.Key) != "key one" {
		t.Fatalf("%+v %v", first, err)
	}
	kept, err := s.SaveAS2Identity(ctx, AS2Identity{AS2ID: "second", Key: []byte("key two"), Certificate: []byte("cert two")}, false)
	if err != nil || kept.AS2ID != "first" {
		t.Fatalf("without replace the first must stay: %+v %v", kept, err)
	}
	replaced, err := s.SaveAS2Identity(ctx, AS2Identity{AS2ID: "second", Key: []byte("key two"), Certificate: []byte("cert two")}, true)
	if err != nil || replaced.AS2ID != "second" || string(replaced.Key) != "key two" || string(replaced.Certificate) != "cert two" {
		t.Fatalf("replace: %+v %v", replaced, err)
	}
	var stored []byte
	s.reader.QueryRow(`SELECT key_enc FROM as2_identity`).Scan(&stored)
	if bytes.Contains(stored, []byte("key two")) {
		t.Fatal("the key is stored in clear")
	}
}

func TestAS2PartnersAndLedger(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	p := AS2Partner{Name: "feap", AS2ID: "FEAP", URL: "https://feap.example/as2", Certificate: "PEM", Sign: "sha1", Cipher: "3des", MDN: "async"}
	created, err := s.CreateAS2Partner(ctx, p)
	if err != nil || created.ID == 0 || created.Cipher != "3des" {
		t.Fatalf("%+v %v", created, err)
	}
	if _, err := s.CreateAS2Partner(ctx, p); !errors.Is(err, ErrConflict) {
		t.Fatalf("same name: %v", err)
	}
	created.URL, created.Compress = "https://feap.example/as2b", true
	if up, err := s.UpdateAS2Partner(ctx, created); err != nil || up.URL != "https://feap.example/as2b" || !up.Compress {
		t.Fatalf("update: %+v %v", up, err)
	}
	if got, err := s.AS2PartnerByAS2ID(ctx, "FEAP"); err != nil || got.Name != "feap" {
		t.Fatalf("by AS2 id: %+v %v", got, err)
	}
	if err := s.RecordAS2Message(ctx, "feap", AS2Outbound, "m1@here", "abc, sha1"); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordAS2Message(ctx, "nobody", AS2Outbound, "m1@here", "abc, sha1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown partner: %v", err)
	}
	if mic, err := s.AS2MessageMIC(ctx, "feap", AS2Outbound, "m1@here"); err != nil || mic != "abc, sha1" {
		t.Fatalf("%q %v", mic, err)
	}
	if _, err := s.AS2MessageMIC(ctx, "feap", AS2Inbound, "m1@here"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other direction: %v", err)
	}
	// The maintenance job forgets what is older than it keeps: here, what was recorded before now.
	now := time.Now()
	s.SetClock(func() time.Time { return now.Add(-time.Hour) })
	if err := s.RecordAS2Message(ctx, "feap", AS2Inbound, "old@there", "def, sha1"); err != nil {
		t.Fatal(err)
	}
	s.SetClock(time.Now)
	if n, err := s.ForgetAS2Messages(ctx, now.Add(-time.Minute)); err != nil || n != 1 {
		t.Fatalf("forgot %d messages (%v), want the one older than a minute", n, err)
	}
	if _, err := s.AS2MessageMIC(ctx, "feap", AS2Inbound, "old@there"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a forgotten message: %v", err)
	}
	if mic, err := s.AS2MessageMIC(ctx, "feap", AS2Outbound, "m1@here"); err != nil || mic != "abc, sha1" {
		t.Fatalf("a newer message: %q %v", mic, err)
	}
	if err := s.DeleteAS2Partner(ctx, "feap"); err != nil {
		t.Fatal(err)
	}
	var n int
	s.reader.QueryRow(`SELECT count(*) FROM as2_messages`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d ledger rows outlive their partner", n)
	}
	if err := s.DeleteAS2Partner(ctx, "feap"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}
