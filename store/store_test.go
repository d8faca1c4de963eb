package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var key = []byte("0123456789abcdef-test")

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMigrationsApplyOnceAndKeepData(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := open(t, dir)
	e, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := open(t, dir)
	var n int
	files, _ := fs.Glob(migrationFiles, "migrations/sqlite/*.sql")
	if err := s2.reader.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(files) || n < 2 {
		t.Fatalf("migrations recorded %d of %d, %v", n, len(files), err)
	}
	got, err := s2.EntityByPublicKey(ctx, e.PublicKey)
	if err != nil || got.NIF != "500000000" {
		t.Fatalf("entity after reopen: %+v %v", got, err)
	}
	var fk, journal string
	s2.writer.QueryRow(`PRAGMA foreign_keys`).Scan(&fk)
	s2.writer.QueryRow(`PRAGMA journal_mode`).Scan(&journal)
	if fk != "1" || journal != "wal" {
		t.Fatalf("foreign_keys %s, journal_mode %s", fk, journal)
	}
	if _, err := s2.reader.Exec(`DELETE FROM entities`); err == nil {
		t.Fatal("the reader pool must not write")
	}
}

func TestEntityConflictAndNotFound(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	if _, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "500000000"}); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate tax ID: %v", err)
	}
	if _, err := s.EntityByNIF(ctx, "PT", "123456789"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
}

func TestSecretsAtRest(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := open(t, dir)
	c, secret, err := s.CreateClient(ctx, "erp", []string{"document_read"})
	if err != nil {
		t.Fatal(err)
	}
	_, platformToken, err := s.CreatePlatformToken(ctx, "legacy", []string{"document_read"})
	if err != nil {
		t.Fatal(err)
	}
	access, _, err := s.IssueAccessToken(ctx, c.ID, c.Scopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := s.ClientSecret(ctx, c.ClientID)
	if err != nil || string(got) != secret {
		t.Fatalf("secret read back %q, %v", got, err)
	}
	s.Close()
	// No secret or token appears in clear anywhere in the database files.
	for _, name := range []string{DBFile, DBFile + "-wal"} {
		raw, _ := os.ReadFile(filepath.Join(dir, name))
		for _, v := range []string{secret, platformToken, access} {
			if bytes.Contains(raw, []byte(v)) {
				t.Fatalf("%s holds a secret in clear", name)
			}
		}
	}
	// Another key cannot read the secret.
	other, err := Open(ctx, dir, []byte("another key 0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, _, err := other.ClientSecret(ctx, c.ClientID); err == nil {
		t.Fatal("a different key decrypted the secret")
	}
}

func TestNoncesAndTokens(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	c, _, _ := s.CreateClient(ctx, "erp", []string{"document_read"})
	now := time.Now()
	if err := s.UseNonce(ctx, c.ID, "abc", now.Add(-10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.UseNonce(ctx, c.ID, "abc", now.Add(-10*time.Minute)); !errors.Is(err, ErrConflict) {
		t.Fatalf("reused nonce: %v", err)
	}
	// Once the window has passed, the old nonce is forgotten.
	s.SetClock(func() time.Time { return now.Add(11 * time.Minute) })
	if err := s.UseNonce(ctx, c.ID, "abc", now.Add(time.Minute)); err != nil {
		t.Fatalf("nonce after the window: %v", err)
	}
	s.SetClock(time.Now)
	tok, _, _ := s.IssueAccessToken(ctx, c.ID, c.Scopes, time.Minute)
	if _, err := s.LookupAccessToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	s.SetClock(func() time.Time { return now.Add(2 * time.Minute) })
	if _, err := s.LookupAccessToken(ctx, tok); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired token: %v", err)
	}
	if n, err := s.PurgeExpired(ctx, now.Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("purged %d, %v", n, err)
	}
}

// The kept counts agree with counting the rows, whatever happens to documents and events.
func TestEntityCountsFollowTheRows(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	a, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	b, _ := s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "500000000"})
	check := func(step string) {
		t.Helper()
		var kept, rows, keptEvents, rowEvents int
		s.reader.QueryRow(`SELECT coalesce((SELECT inbox FROM entity_counts WHERE entity_id = ?), 0)`, b.ID).Scan(&kept)
		s.reader.QueryRow(`SELECT count(*) FROM documents WHERE recipient_id = ? AND imported_at IS NULL AND state IN ('sent', 'accepted')`, b.ID).Scan(&rows)
		s.reader.QueryRow(`SELECT coalesce((SELECT unread_events FROM entity_counts WHERE entity_id = ?), 0)`, a.ID).Scan(&keptEvents)
		s.reader.QueryRow(`SELECT count(*) FROM state_events WHERE entity_id = ? AND read_at IS NULL`, a.ID).Scan(&rowEvents)
		if kept != rows || keptEvents != rowEvents {
			t.Fatalf("%s: inbox kept %d counted %d; events kept %d counted %d", step, kept, rows, keptEvents, rowEvents)
		}
	}
	var docs []Document
	err := s.Update(ctx, func(tx *Tx) error {
		for i, state := range []string{StateSent, StateToSend, StateSent, StateAccepted} {
			d := Document{IssuerID: a.ID, RecipientID: b.ID, Kind: "invoice", TypeCode: "FT", Number: fmt.Sprint("N", i), EmissionDate: "2026-11-20",
				Currency: "EUR", PayableAmount: "1.00", State: state, EDIState: "pending", Method: "data", Data: []byte("{}")}
			if err := tx.SaveDocument(&d); err != nil {
				return err
			}
			if err := tx.AddStateEvent(StateEvent{EntityID: a.ID, DocumentID: d.ID, State: state, EDIState: "pending"}); err != nil {
				return err
			}
			docs = append(docs, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("created")
	steps := []func(tx *Tx) error{
		func(tx *Tx) error { _, err := tx.MarkImported(docs[0].ID); return err },
		func(tx *Tx) error { _, err := tx.MarkImported(docs[0].ID); return err },
		func(tx *Tx) error { d := docs[2]; d.State = StateRejected; return tx.SaveDocument(&d) },
		func(tx *Tx) error { d := docs[1]; d.State = StateSent; return tx.SaveDocument(&d) },
		func(tx *Tx) error { d := docs[0]; d.ImportedAt = ""; d.State = StateSent; return tx.SaveDocument(&d) },
		func(tx *Tx) error { _, err := tx.tx.Exec(`DELETE FROM documents WHERE id = ?`, docs[3].ID); return err },
	}
	for i, step := range steps {
		if err := s.Update(ctx, step); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprint("step ", i))
	}
	events, _, _ := s.StateEvents(ctx, EventFilter{EntityID: a.ID, Limit: 10})
	if _, err := s.MarkEventsRead(ctx, a.ID, []int64{events[0].ID}); err != nil {
		t.Fatal(err)
	}
	check("events read")
}
