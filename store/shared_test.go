package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/store/pgtest"
	"einvoice/store/storetest"
)

// twoStores opens two stores on one database, as two processes of an installation would: on the
// PostgreSQL test server when one is configured, else on one SQLite file.
func twoStores(t *testing.T) (*store.Store, *store.Store) {
	t.Helper()
	ctx := context.Background()
	open := func(dsn string) *store.Store {
		var st *store.Store
		var err error
		if storetest.Engine() == "postgres" {
			st, err = store.OpenPostgres(ctx, dsn, counterKey)
		} else {
			st, err = store.Open(ctx, dsn, counterKey)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	where := t.TempDir()
	if storetest.Engine() == "postgres" {
		where = pgtest.NewDatabase(t)
	}
	return open(where), open(where)
}

// A nonce sent at once to two stores of one database is accepted by exactly one of them.
func TestNonceIsUsedOnceAcrossStores(t *testing.T) {
	a, b := twoStores(t)
	ctx := context.Background()
	c, _, err := a.CreateClient(ctx, "client", []string{"document_read"})
	if err != nil {
		t.Fatal(err)
	}
	const tries = 8
	results := make(chan error, tries)
	var wg sync.WaitGroup
	for i := range tries {
		st := []*store.Store{a, b}[i%2]
		wg.Go(func() { results <- st.UseNonce(ctx, c.ID, "the-nonce", time.Now().Add(-10*time.Minute)) })
	}
	wg.Wait()
	close(results)
	accepted := 0
	for err := range results {
		switch {
		case err == nil:
			accepted++
		case !errors.Is(err, store.ErrConflict):
			t.Fatal(err)
		}
	}
	if accepted != 1 {
		t.Fatalf("the nonce was accepted %d times", accepted)
	}
}
