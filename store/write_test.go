package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// holdWriter starts an Update that keeps the writer until release is called, and returns once it runs.
func holdWriter(t *testing.T, s *Store) (release func()) {
	t.Helper()
	running, hold, finished := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		finished <- s.Update(context.Background(), func(tx *Tx) error {
			close(running)
			<-hold
			return nil
		})
	}()
	<-running
	return func() {
		close(hold)
		if err := <-finished; err != nil {
			t.Error(err)
		}
	}
}

// queueUpdates starts one Update per fn, in order, each once the one before is queued, and returns
// their outcomes' channels.
func queueUpdates(t *testing.T, s *Store, ctx context.Context, fns ...func(tx *Tx) error) []chan error {
	t.Helper()
	var outs []chan error
	for _, fn := range fns {
		out := make(chan error, 1)
		outs = append(outs, out)
		queued := queueLength(s) + 1
		go func() { out <- s.Update(ctx, fn) }()
		waitForQueue(t, s, queued)
	}
	return outs
}

func queueLength(s *Store) int {
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	return len(s.queue)
}

func waitForQueue(t *testing.T, s *Store, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); queueLength(s) != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d updates queued, want %d", queueLength(s), n)
		}
	}
}

// setSetting is a write of one setting inside an Update.
func setSetting(tx *Tx, key string) error {
	_, err := tx.tx.ExecContext(tx.ctx, `INSERT INTO settings (key, value) VALUES (?, 'v')`, key)
	return err
}

func settingExists(t *testing.T, s *Store, key string) bool {
	t.Helper()
	_, err := s.Setting(context.Background(), key)
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// Group commit is SQLite's (one writer at a time); PostgreSQL runs the writes side by side, so these
// tests open SQLite whatever the environment.

// Updates that queue while another one runs are committed by one transaction: none of them is
// visible to a reader before all of them are done.
func TestUpdatesQueuedTogetherCommitTogether(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	release := holdWriter(t, s)
	var mu sync.Mutex
	seenCommitted := 0
	var fns []func(tx *Tx) error
	for i := range 5 {
		fns = append(fns, func(tx *Tx) error {
			var n int // what a reader sees of the writes queued with this one
			if err := s.reader.QueryRow(`SELECT count(*) FROM settings WHERE key LIKE 'group-%'`).Scan(&n); err != nil {
				return err
			}
			mu.Lock()
			seenCommitted = max(seenCommitted, n)
			mu.Unlock()
			return setSetting(tx, fmt.Sprintf("group-%d", i))
		})
	}
	outs := queueUpdates(t, s, context.Background(), fns...)
	release()
	for _, out := range outs {
		if err := <-out; err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		if !settingExists(t, s, fmt.Sprintf("group-%d", i)) {
			t.Errorf("group-%d not stored", i)
		}
	}
	if seenCommitted != 0 {
		t.Errorf("a reader saw %d of the queued writes before the last one ran: they were not committed together", seenCommitted)
	}
}

// In a group, a write that fails (here a conflict with another write of the group) rolls back only
// its own changes and gets its own error.
func TestAFailingUpdateInAGroupRollsBackOnlyItself(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	release := holdWriter(t, s)
	refused := errors.New("refused")
	outs := queueUpdates(t, s, context.Background(),
		func(tx *Tx) error { return setSetting(tx, "first") },
		func(tx *Tx) error {
			if err := setSetting(tx, "second"); err != nil {
				return err
			}
			return refused
		},
		func(tx *Tx) error { return setSetting(tx, "first") }, // the first's key again
		func(tx *Tx) error { return setSetting(tx, "fourth") },
	)
	release()
	errs := []error{<-outs[0], <-outs[1], <-outs[2], <-outs[3]}
	if errs[0] != nil || !errors.Is(errs[1], refused) || !errors.Is(errs[2], ErrConflict) || errs[3] != nil {
		t.Fatalf("outcomes %v", errs)
	}
	for key, want := range map[string]bool{"first": true, "second": false, "fourth": true} {
		if got := settingExists(t, s, key); got != want {
			t.Errorf("%s stored: %v, want %v", key, got, want)
		}
	}
}

// A write that ends the transaction itself takes with it the writes that ran before it in the group
// (their callers get an error, nothing of theirs is stored); the writes after it run on their own.
func TestAGroupWhoseTransactionIsLostReportsItToEveryWriteInIt(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	release := holdWriter(t, s)
	outs := queueUpdates(t, s, context.Background(),
		func(tx *Tx) error { return setSetting(tx, "before") },
		func(tx *Tx) error {
			_, err := tx.tx.ExecContext(tx.ctx, `ROLLBACK`)
			return err
		},
		func(tx *Tx) error { return setSetting(tx, "after") },
	)
	release()
	before, lost, after := <-outs[0], <-outs[1], <-outs[2]
	if before == nil || lost == nil || after != nil {
		t.Fatalf("outcomes: before %v, lost %v, after %v", before, lost, after)
	}
	if settingExists(t, s, "before") || !settingExists(t, s, "after") {
		t.Error("before must be rolled back and after stored")
	}
}

// A caller that gave up before its write ran gets its context's error and nothing is written; a
// panic in a grouped write reaches its own caller, and the others of the group are committed.
func TestGroupedUpdatesCancelledOrPanicking(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	release := holdWriter(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := queueUpdates(t, s, ctx, func(tx *Tx) error { return setSetting(tx, "cancelled") })
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		s.Update(context.Background(), func(tx *Tx) error {
			setSetting(tx, "panicking")
			panic("boom")
		})
	}()
	waitForQueue(t, s, 2)
	others := queueUpdates(t, s, context.Background(), func(tx *Tx) error { return setSetting(tx, "other") })
	cancel()
	release()
	if err := <-cancelled[0]; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if p := <-panicked; p != "boom" {
		t.Errorf("panic: %v", p)
	}
	if err := <-others[0]; err != nil {
		t.Errorf("other: %v", err)
	}
	for key, want := range map[string]bool{"cancelled": false, "panicking": false, "other": true} {
		if got := settingExists(t, s, key); got != want {
			t.Errorf("%s stored: %v, want %v", key, got, want)
		}
	}
	if err := s.SetSetting(context.Background(), "later", "v"); err != nil {
		t.Fatalf("a write after the panic: %v", err)
	}
}
