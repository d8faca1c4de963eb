package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/store/storetest"
)

var counterKey = []byte("0123456789abcdef-test")

func TestCounterWindowsAndBlocks(t *testing.T) {
	st := storetest.Open(t, counterKey)
	ctx := context.Background()
	l := store.CounterLimit{Limit: 3, Window: time.Minute, Block: 2 * time.Minute}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	count := func(key string, at time.Duration) (time.Duration, bool) {
		t.Helper()
		wait, ok, err := st.CountEvent(ctx, key, t0.Add(at), l)
		if err != nil {
			t.Fatal(err)
		}
		return wait, ok
	}
	expect := func(key string, at, wantWait time.Duration, wantOK bool) {
		t.Helper()
		if wait, ok := count(key, at); ok != wantOK || wait != wantWait {
			t.Fatalf("%s at %v: ok %v wait %v, want %v %v", key, at, ok, wait, wantOK, wantWait)
		}
	}
	blocked := func(key string, at, wantWait time.Duration) {
		t.Helper()
		wait, b, err := st.CounterBlocked(ctx, key, t0.Add(at))
		if err != nil || b != (wantWait > 0) || wait != wantWait {
			t.Fatalf("%s blocked at %v: %v %v %v, want %v", key, at, b, wait, err, wantWait)
		}
	}

	// A window allows the limit; the next event blocks the key for the block period.
	for i := range 3 {
		expect("a", time.Duration(i)*time.Second, 0, true)
	}
	blocked("a", 3*time.Second, 0)
	expect("a", 10*time.Second, 2*time.Minute, false)
	blocked("a", 70*time.Second, 60*time.Second)
	// Blocked events are refused and not counted, even after the window would have ended.
	expect("a", 100*time.Second, 30*time.Second, false)
	// The first event after the block opens a new window.
	for i := range 3 {
		expect("a", 130*time.Second+time.Duration(i)*time.Second, 0, true)
	}
	expect("a", 140*time.Second, 2*time.Minute, false)

	// Keys are counted apart; a window that ended starts again from one.
	for i := range 3 {
		expect("b", time.Duration(i)*time.Second, 0, true)
	}
	for i := range 3 {
		expect("b", time.Minute+time.Duration(i)*time.Second, 0, true)
	}
	blocked("never-seen", 0, 0)
}

// Events counted at once by many goroutines on two stores of one database add up exactly: the limit
// lets exactly that many through, and the next is refused.
func TestCounterConcurrentEventsAddUpExactly(t *testing.T) {
	a, b := twoStores(t)
	ctx := context.Background()
	const workers, each = 16, 25
	l := store.CounterLimit{Limit: workers * each, Window: time.Hour, Block: time.Minute}
	now := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		st := a
		if w%2 == 1 {
			st = b
		}
		wg.Go(func() {
			for range each {
				if _, ok, err := st.CountEvent(ctx, "shared", now, l); err != nil || !ok {
					errs <- err
					if err == nil {
						t.Error("an event within the limit was refused")
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := a.CountEvent(ctx, "shared", now, l); err != nil || ok {
		t.Fatalf("the event past the limit: ok %v, %v", ok, err)
	}
	if _, blocked, err := b.CounterBlocked(ctx, "shared", now); err != nil || !blocked {
		t.Fatalf("the other store sees the block: %v %v", blocked, err)
	}
}

// The maintenance purge forgets counters whose window and block ended, and keeps the others.
func TestPurgeForgetsEndedCounters(t *testing.T) {
	st := storetest.Open(t, counterKey)
	ctx := context.Background()
	now := time.Now()
	l := store.CounterLimit{Limit: 1, Window: time.Minute, Block: time.Hour}
	for _, key := range []string{"ended", "blocked", "blocked"} {
		if _, _, err := st.CountEvent(ctx, key, now, l); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := st.PurgeExpired(ctx, now.Add(2*time.Minute)); err != nil || n != 1 {
		t.Fatalf("purged %d, %v", n, err)
	}
	if _, blocked, err := st.CounterBlocked(ctx, "blocked", now.Add(2*time.Minute)); err != nil || !blocked {
		t.Fatalf("the blocked counter went: %v %v", blocked, err)
	}
	if _, ok, err := st.CountEvent(ctx, "ended", now.Add(2*time.Minute), l); err != nil || !ok {
		t.Fatalf("the ended counter starts again: %v %v", ok, err)
	}
}
