// Package storetest opens stores for the tests of the packages above the store, on the engine the
// environment chooses: SQLite in a temporary folder, or PostgreSQL when EINVOICE_TEST_POSTGRES names a
// test server (a fresh database per store, see pgtest).
package storetest

import (
	"context"
	"testing"

	"einvoice/store"
	"einvoice/store/pgtest"
)

// Engine is the engine the tests run on: "postgres" when a test server is configured, else "sqlite".
func Engine() string {
	if pgtest.Server() != "" {
		return "postgres"
	}
	return "sqlite"
}

// Open opens a new, empty store with the given secret key, closed when the test ends.
func Open(tb testing.TB, key []byte) *store.Store {
	tb.Helper()
	var st *store.Store
	var err error
	if Engine() == "postgres" {
		st, err = store.OpenPostgres(context.Background(), pgtest.NewPreparedDatabase(tb, migrate), key)
	} else {
		st, err = store.Open(context.Background(), tb.TempDir(), key)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// migrate applies the store's migrations to the template every test database is copied from.
func migrate(dsn string) error {
	st, err := store.OpenPostgres(context.Background(), dsn, []byte("template key, never used by a test"))
	if err != nil {
		return err
	}
	return st.Close()
}
