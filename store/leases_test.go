package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// Two stores on one database are two processes of one installation: claiming the same queue at once,
// they never get the same row and leave none behind. A row whose lease ran out is claimed again, and
// an outcome ends the lease at once.
func TestClaimsOfTwoStoresNeverShareARow(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	ctx := context.Background()
	issuer, recipient, d := twoEntitiesAndADocument(t, a)
	const rows = 60
	err := a.Update(ctx, func(tx *Tx) error {
		for i := range rows {
			if err := tx.Enqueue("webhook", issuer.ID, d.ID, map[string]int{"i": i}); err != nil {
				return err
			}
			if err := tx.QueueEmails(d.ID, issuer.ID, "pt", []NewEmail{{Address: fmt.Sprintf("c%d@example.com", i),
				MessageID: fmt.Sprintf("<m%d@example.com>", i), OpenTokenHash: []byte(fmt.Sprintf("token %d", i))}}); err != nil {
				return err
			}
			if err := tx.QueueEDI(EDIDelivery{DocumentID: d.ID, Version: 1, Kind: "document", Connector: "as2", Partner: "p",
				FromNIF: issuer.NIF, ToNIF: recipient.NIF, MessageID: fmt.Sprintf("edi-%d", i)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const (
		now      = "9000-01-01 00:00:00"
		lease    = "9000-01-01 00:05:00" // the first claims' lease: over at later
		later    = "9000-01-01 00:05:00"
		laterEnd = "9000-01-01 00:10:00"
	)
	// Each queue: its claim, and the outcome of an attempt to be made again at later.
	queues := []struct {
		name  string
		claim func(s *Store, now, leaseUntil string) ([]int64, error)
		retry func(s *Store, id int64) error
	}{
		{"outbox", func(s *Store, now, leaseUntil string) ([]int64, error) {
			items, err := s.ClaimOutbox(ctx, "webhook", now, leaseUntil, 7)
			return idsOf(items, func(o OutboxItem) int64 { return o.ID }), err
		}, func(s *Store, id int64) error {
			return s.RecordOutbox(ctx, []OutboxResult{{ID: id, NextAt: later, Error: "HTTP 503"}})
		}},
		{"emails", func(s *Store, now, leaseUntil string) ([]int64, error) {
			emails, err := s.ClaimEmails(ctx, now, leaseUntil, 7)
			return idsOf(emails, func(e Email) int64 { return e.ID }), err
		}, func(s *Store, id int64) error {
			return s.RecordEmails(ctx, []EmailOutcome{{ID: id, NextAt: later, Error: "421"}})
		}},
		{"edi", func(s *Store, now, leaseUntil string) ([]int64, error) {
			deliveries, err := s.ClaimEDI(ctx, now, leaseUntil, 7, 0)
			return idsOf(deliveries, func(d EDIDelivery) int64 { return d.ID }), err
		}, func(s *Store, id int64) error {
			return s.Update(ctx, func(tx *Tx) error { return tx.RecordEDIAttempt(id, EDIOutcome{State: EDIQueued, NextAt: later}) })
		}},
	}
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			claimedBy := map[int64]int{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, s := range []*Store{a, b, a, b} {
				wg.Go(func() {
					for {
						ids, err := q.claim(s, now, lease)
						if err != nil {
							t.Error(err)
						}
						if len(ids) == 0 {
							return
						}
						mu.Lock()
						for _, id := range ids {
							claimedBy[id]++
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if len(claimedBy) != rows {
				t.Fatalf("%d rows claimed of %d", len(claimedBy), rows)
			}
			for id, n := range claimedBy {
				if n != 1 {
					t.Errorf("row %d claimed %d times", id, n)
				}
			}
			if ids, err := q.claim(a, now, lease); err != nil || len(ids) != 0 {
				t.Fatalf("claimed under a running lease: %v %v", ids, err)
			}

			// The leases ran out (their process died): every row is claimed again, once.
			again := map[int64]bool{}
			for {
				ids, err := q.claim(b, later, laterEnd)
				if err != nil {
					t.Fatal(err)
				}
				if len(ids) == 0 {
					break
				}
				for _, id := range ids {
					again[id] = true
				}
			}
			if len(again) != rows {
				t.Fatalf("%d rows claimed again after their lease of %d", len(again), rows)
			}

			// An outcome ends the lease: the row is due again at its next attempt, not at the lease's end.
			var first int64
			for id := range again {
				first = id
				break
			}
			if err := q.retry(b, first); err != nil {
				t.Fatal(err)
			}
			if ids, err := q.claim(a, later, laterEnd); err != nil || len(ids) != 1 || ids[0] != first {
				t.Fatalf("after an outcome: claimed %v (want [%d]), %v", ids, first, err)
			}
		})
	}
}

func idsOf[T any](rows []T, id func(T) int64) []int64 {
	var out []int64
	for _, r := range rows {
		out = append(out, id(r))
	}
	return out
}

// A singleton job's lock, taken by one store, is refused to another store on the same database until
// it is given back or its holder's connection dies (a process killed); on SQLite, where one process
// owns the database, it is always granted.
func TestLockOfOneStoreIsRefusedToTheOther(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	ctx := context.Background()
	releaseA, ok, err := a.TryLock(ctx, "maintenance")
	if err != nil || !ok {
		t.Fatalf("the free lock: %v %v", ok, err)
	}
	releaseB, ok, err := b.TryLock(ctx, "maintenance")
	if err != nil || ok != !b.Shared() {
		t.Fatalf("the lock the other store holds: granted %v on %s, %v", ok, b.Engine(), err)
	}
	if ok {
		releaseB()
	}
	releaseOther, ok, err := b.TryLock(ctx, "bounces")
	if err != nil || !ok {
		t.Fatalf("another name: %v %v", ok, err)
	}
	releaseOther()
	releaseA()
	releaseB, ok, err = b.TryLock(ctx, "maintenance")
	if err != nil || !ok {
		t.Fatalf("the lock given back: %v %v", ok, err)
	}
	if !b.Shared() {
		releaseB()
		return
	}
	// b's process dies: its session ends (the statement waits until it has), and the lock is free.
	if _, err := a.writer.ExecContext(ctx, `SELECT pg_terminate_backend(pid, 5000) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND pid != pg_backend_pid()
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); err != nil {
		t.Fatal(err)
	}
	releaseA, ok, err = a.TryLock(ctx, "maintenance")
	if err != nil || !ok {
		t.Fatalf("the lock of a dead session: %v %v", ok, err)
	}
	releaseA()
	releaseB()
}

// On SQLite the starting server releases what a dead predecessor had claimed; on PostgreSQL the leases
// are left to run out, since another live process may hold them.
func TestReleaseLeasesOnlyOnADatabaseOneProcessOwns(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	issuer, _, d := twoEntitiesAndADocument(t, s)
	if err := s.Update(ctx, func(tx *Tx) error { return tx.Enqueue("webhook", issuer.ID, d.ID, map[string]int{"i": 1}) }); err != nil {
		t.Fatal(err)
	}
	const now, leaseUntil = "9000-01-01 00:00:00", "9000-01-01 00:05:00"
	if got, err := s.ClaimOutbox(ctx, "webhook", now, leaseUntil, 10); err != nil || len(got) != 1 {
		t.Fatalf("first claim: %d, %v", len(got), err)
	}
	if err := s.ReleaseLeases(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClaimOutbox(ctx, "webhook", now, leaseUntil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]int{false: 1, true: 0}[s.Shared()]; len(got) != want {
		t.Fatalf("claimed again after the release on %s: %d rows, want %d", s.Engine(), len(got), want)
	}
}
