package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWALStaysSmallUnderContinuousWrites writes without a pause from four goroutines while the
// checkpointer runs every 20 ms, the writer copying the rest past 500 pages: the WAL is copied into
// the database and started afresh, so its file stays far smaller than what was written; and every row
// written is in the database.
func TestWALStaysSmallUnderContinuousWrites(t *testing.T) {
	dir := t.TempDir()
	s := openSQLite(t, dir)
	s.checkpoints.close()
	db, err := openDB(dsn(filepath.Join(dir, DBFile), false))
	if err != nil {
		t.Fatal(err)
	}
	s.checkpoints = s.startCheckpoints(db, 20*time.Millisecond, 500)
	ctx := context.Background()
	if _, err := s.writer.ExecContext(ctx, "CREATE TABLE scratch (n INTEGER, data BLOB)"); err != nil {
		t.Fatal(err)
	}
	const writers, rows, size = 4, 2400, 8 << 10
	blob := make([]byte, size)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range rows {
				if err := s.write(ctx, func(tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, "INSERT INTO scratch VALUES (?, ?)", w*rows+i, blob)
					return err
				}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	var n int
	if err := s.reader.QueryRowContext(ctx, "SELECT count(*) FROM scratch").Scan(&n); err != nil || n != writers*rows {
		t.Fatalf("%d rows (%v), want %d", n, err, writers*rows)
	}
	st, err := os.Stat(filepath.Join(dir, DBFile+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	if written := int64(writers * rows * size); st.Size() > written/4 {
		t.Fatalf("the WAL grew to %d bytes for %d written: it was not started afresh", st.Size(), written)
	}
	t.Logf("the WAL's file reached %d bytes", st.Size())
}
