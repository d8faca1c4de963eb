package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWALStartsAfreshUnderContinuousWrites writes without a pause from four goroutines while the
// checkpointer runs every 20 ms, the writer copying the rest past 500 pages: the WAL is copied into
// the database and started afresh again and again (some 40 times here; its file stays at about a
// sixth of what was written), and every row written is in the database.
func TestWALStartsAfreshUnderContinuousWrites(t *testing.T) {
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
	// SQLite counts each start afresh in the WAL's header (bytes 12–15, the checkpoint sequence).
	header := make([]byte, 16)
	f, err := os.Open(filepath.Join(dir, DBFile+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, header); err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	// Without the writer's copy, writes that keep coming leave no moment to start afresh: 0.
	if restarts := binary.BigEndian.Uint32(header[12:]); restarts < 5 {
		t.Fatalf("the WAL was started afresh %d times while %d bytes were written; its file has %d bytes",
			restarts, writers*rows*size, st.Size())
	}
}
