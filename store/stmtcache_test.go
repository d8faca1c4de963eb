package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
)

// The statement cache is SQLite's (pgx caches statements on its own): these tests open SQLite
// whatever the environment.

// cacheOf runs fn with the statement cache of the writer's only connection.
func cacheOf(t *testing.T, s *Store, fn func(c *cachingConn)) {
	t.Helper()
	conn, err := s.writer.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error { fn(dc.(*cachingConn)); return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestStatementsArePreparedOncePerConnection(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	ctx := context.Background()
	var prepared, reused uint64
	cacheOf(t, s, func(c *cachingConn) { prepared, reused = c.prepared, c.reused })
	for i := range 50 {
		if err := s.SetSetting(ctx, "k", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	cacheOf(t, s, func(c *cachingConn) {
		// BEGIN and COMMIT are the driver's own; the INSERT is the one statement run through the cache.
		if c.prepared-prepared > 1 || c.reused-reused < 49 {
			t.Errorf("50 runs of one statement: %d prepared, %d reused", c.prepared-prepared, c.reused-reused)
		}
	})
	if v, err := s.Setting(ctx, "k"); err != nil || v != "49" {
		t.Fatalf("setting %q %v", v, err)
	}
}

// A statement whose rows are still open is run again unprepared: both results are right.
func TestStatementCacheNestedUseOfOneStatement(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	ctx := context.Background()
	for _, k := range []string{"a", "b", "c"} {
		if err := s.SetSetting(ctx, k, "value "+k); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT key, value FROM settings WHERE key >= ? ORDER BY key`
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, "a")
		if err != nil {
			return err
		}
		defer rows.Close()
		var outer []string
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			outer = append(outer, k)
			var k2, v2 string
			if err := tx.QueryRowContext(ctx, q, k).Scan(&k2, &v2); err != nil || k2 != k || v2 != "value "+k {
				return fmt.Errorf("inner query at %s: %s %s %v", k, k2, v2, err)
			}
		}
		if fmt.Sprint(outer) != "[a b c]" {
			return fmt.Errorf("outer rows %v", outer)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	// The cached statement is free again once its rows are closed.
	if v, err := s.Setting(ctx, "b"); err != nil || v != "value b" {
		t.Fatalf("after: %q %v", v, err)
	}
}

func TestStatementCacheIsBounded(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	ctx := context.Background()
	for i := range stmtCacheSize + 20 {
		var n int
		if err := s.writer.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d`, i)).Scan(&n); err != nil || n != i {
			t.Fatalf("SELECT %d: %d %v", i, n, err)
		}
	}
	cacheOf(t, s, func(c *cachingConn) {
		if len(c.stmts) > stmtCacheSize {
			t.Errorf("%d statements kept, bound %d", len(c.stmts), stmtCacheSize)
		}
		if _, ok := c.stmts[`SELECT 0`]; ok {
			t.Error("the least recently used statement is still kept")
		}
	})
	var n int // an evicted statement is prepared again
	if err := s.writer.QueryRowContext(ctx, `SELECT 0`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("SELECT 0 again: %d %v", n, err)
	}
}

// A constraint violation through a cached statement is mapped as before, and the statement runs
// again afterwards.
func TestStatementCacheKeepsErrorsAndRecovers(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	ctx := context.Background()
	if _, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "500000000"}); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate NIF: %v", err)
	}
	if _, err := s.CreateEntity(ctx, NewEntity{Name: "C", Country: "PT", NIF: "508025338"}); err != nil {
		t.Fatalf("after the conflict: %v", err)
	}
	if _, err := s.EntityByNIF(ctx, "PT", "999999990"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown NIF: %v", err)
	}
	ctxDone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.EntityByNIF(ctxDone, "PT", "508025338"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if e, err := s.EntityByNIF(ctx, "PT", "508025338"); err != nil || e.Name != "C" {
		t.Fatalf("after a cancelled query: %+v %v", e, err)
	}
}
