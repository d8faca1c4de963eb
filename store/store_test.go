package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"einvoice/store/pgtest"
)

var key = []byte("0123456789abcdef-test")

// open opens the test's store in dir on the engine the environment chooses: SQLite in dir, or, when
// EINVOICE_TEST_POSTGRES is set, a PostgreSQL database of the test's own. Opening the same dir again
// opens the same database.
func open(t *testing.T, dir string) *Store {
	t.Helper()
	return openWithKey(t, dir, key)
}

// migrateTemplate applies the migrations to the database every test database is copied from.
func migrateTemplate(dsn string) error {
	s, err := OpenPostgres(context.Background(), dsn, key)
	if err != nil {
		return err
	}
	return s.Close()
}

// openWithKey is open with another installation key.
func openWithKey(t *testing.T, dir string, key []byte) *Store {
	t.Helper()
	if pgtest.Server() == "" {
		return openSQLite(t, dir, key)
	}
	dsn, ok := postgresOfDir.Load(dir)
	if !ok {
		dsn, _ = postgresOfDir.LoadOrStore(dir, pgtest.NewPreparedDatabase(t, migrateTemplate))
		t.Cleanup(func() { postgresOfDir.Delete(dir) })
	}
	s, err := OpenPostgres(context.Background(), dsn.(string), key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// postgresOfDir is the PostgreSQL database of each test folder open has seen.
var postgresOfDir sync.Map // dir → address

// openSQLite opens the SQLite store in dir, whatever the environment: for the tests of what only
// SQLite has (its files, its pragmas, its statement cache, its single writer). key is optional.
func openSQLite(t *testing.T, dir string, keys ...[]byte) *Store {
	t.Helper()
	key := append(keys, key)[0]
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
	files, _ := fs.Glob(migrationFiles, "migrations/"+s2.Engine()+"/*.sql")
	if err := s2.reader.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(files) || n < 1 {
		t.Fatalf("migrations recorded %d of %d, %v", n, len(files), err)
	}
	got, err := s2.EntityByPublicKey(ctx, e.PublicKey)
	if err != nil || got.NIF != "500000000" {
		t.Fatalf("entity after reopen: %+v %v", got, err)
	}
	if s2.Engine() != "sqlite" {
		return
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
	// No secret or token appears in clear in any row, nor (on SQLite) anywhere in the database files.
	stored := [][]byte{}
	for _, table := range []string{"credentials", "access_tokens"} {
		rows, err := s.reader.Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		columns, _ := rows.Columns()
		for rows.Next() {
			values := make([]any, len(columns))
			for i := range values {
				values[i] = new([]byte)
			}
			if err := rows.Scan(values...); err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				stored = append(stored, *v.(*[]byte))
			}
		}
		rows.Close()
	}
	if len(stored) < 10 {
		t.Fatalf("%d values stored", len(stored))
	}
	s.Close()
	for _, name := range []string{DBFile, DBFile + "-wal"} {
		raw, _ := os.ReadFile(filepath.Join(dir, name))
		stored = append(stored, raw)
	}
	for _, raw := range stored {
		for _, v := range []string{secret, platformToken, access} {
			if bytes.Contains(raw, []byte(v)) {
				t.Fatalf("a secret is stored in clear")
			}
		}
	}
	// Another key cannot read the secret.
	other := openWithKey(t, dir, []byte("another key 0123456789"))
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
		var kept, rows, keptEvents, rowEvents, keptIssued, rowIssued int
		s.reader.QueryRow(`SELECT coalesce((SELECT issued FROM entity_counts WHERE entity_id = ?), 0)`, a.ID).Scan(&keptIssued)
		s.reader.QueryRow(`SELECT count(*) FROM documents WHERE issuer_id = ?`, a.ID).Scan(&rowIssued)
		s.reader.QueryRow(`SELECT coalesce((SELECT inbox FROM entity_counts WHERE entity_id = ?), 0)`, b.ID).Scan(&kept)
		s.reader.QueryRow(`SELECT count(*) FROM documents WHERE recipient_id = ? AND imported_at IS NULL AND state IN ('sent', 'accepted')`, b.ID).Scan(&rows)
		s.reader.QueryRow(`SELECT coalesce((SELECT unread_events FROM entity_counts WHERE entity_id = ?), 0)`, a.ID).Scan(&keptEvents)
		s.reader.QueryRow(`SELECT count(*) FROM state_events WHERE entity_id = ? AND read_at IS NULL`, a.ID).Scan(&rowEvents)
		if kept != rows || keptEvents != rowEvents || keptIssued != rowIssued {
			t.Fatalf("%s: inbox kept %d counted %d; events kept %d counted %d; issued kept %d counted %d",
				step, kept, rows, keptEvents, rowEvents, keptIssued, rowIssued)
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

// bothEngines opens a store on SQLite and, with a test server, one on PostgreSQL.
func bothEngines(t *testing.T) map[string]*Store {
	engines := map[string]*Store{"sqlite": openSQLite(t, t.TempDir())}
	if pgtest.Server() != "" {
		engines["postgres"] = open(t, t.TempDir())
	}
	return engines
}

// The sentinel errors mean the same on both engines (PostgreSQL's run only with a test server): a
// unique key or a primary key taken is ErrConflict, a row that is not there ErrNotFound, and a
// connection that exists already is ErrConflict inside an Update whose transaction then goes on.
func TestSentinelErrorsOnBothEngines(t *testing.T) {
	ctx := context.Background()
	for name, s := range bothEngines(t) {
		t.Run(name, func(t *testing.T) {
			a, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"})
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "500000001"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateEntity(ctx, NewEntity{Name: "A again", Country: "PT", NIF: "500000000"}); !errors.Is(err, ErrConflict) {
				t.Errorf("a taken tax ID: %v", err)
			}
			c, _, err := s.CreateClient(ctx, "erp", []string{"document_read"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.UseNonce(ctx, c.ID, "n1", time.Now().Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
			if err := s.UseNonce(ctx, c.ID, "n1", time.Now().Add(-time.Hour)); !errors.Is(err, ErrConflict) {
				t.Errorf("a nonce used twice (a primary key): %v", err)
			}
			if _, err := s.EntityByNIF(ctx, "PT", "123456789"); !errors.Is(err, ErrNotFound) {
				t.Errorf("an unknown entity: %v", err)
			}
			if _, err := s.ConnectionByID(ctx, 1<<40); !errors.Is(err, ErrNotFound) {
				t.Errorf("an unknown connection: %v", err)
			}
			if _, err := s.CreateConnection(ctx, NewConnection{FromEntityID: a.ID, ToEntityID: b.ID}); err != nil {
				t.Fatal(err)
			}
			err = s.Update(ctx, func(tx *Tx) error {
				if _, err := tx.ConnectionByID(1 << 40); !errors.Is(err, ErrNotFound) {
					t.Errorf("an unknown connection in a transaction: %v", err)
				}
				if _, err := tx.CreateConnection(NewConnection{FromEntityID: a.ID, ToEntityID: b.ID}); !errors.Is(err, ErrConflict) {
					t.Errorf("the same connection again: %v", err)
				}
				_, err := tx.CreateConnection(NewConnection{FromEntityID: b.ID, ToEntityID: a.ID})
				return err
			})
			if err != nil {
				t.Fatalf("the transaction after a conflict: %v", err)
			}
			var n int
			if err := s.reader.QueryRow(`SELECT count(*) FROM connections`).Scan(&n); err != nil || n != 2 {
				t.Errorf("%d connections (%v): the one made after the conflict is not stored", n, err)
			}
		})
	}
}

// Strings that are not valid UTF-8 or hold a NUL byte (PostgreSQL's text holds neither) find nothing
// and are stored readable, on both engines.
func TestStringsTextCannotHold(t *testing.T) {
	ctx := context.Background()
	for name, s := range bothEngines(t) {
		t.Run(name, func(t *testing.T) {
			for _, nif := range []string{"\xff", "50\x000"} {
				if _, err := s.EntityByNIF(ctx, "PT", nif); !errors.Is(err, ErrNotFound) {
					t.Errorf("tax ID %q: %v", nif, err)
				}
			}
			u, err := s.CreateUser(ctx, NewUser{Username: "ana@example.com", PasswordHash: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateSession(ctx, []byte("token hash"), u.ID, time.Now().Add(time.Hour), "agent \xff\x00", "::1"); err != nil {
				t.Fatalf("a session with a user agent text cannot hold: %v", err)
			}
		})
	}
}
