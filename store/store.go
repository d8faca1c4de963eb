// Package store keeps everything einvoice knows in one database: an embedded SQLite file (the default)
// or a PostgreSQL database shared by several processes. It holds entities, platform credentials,
// access tokens, connections, documents and their outbox. It owns the schema (embedded migrations per
// engine, applied at start), the connection discipline of each engine, and the at-rest protection of
// secrets. It knows nothing of HTTP, UBL or signing.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors callers can test with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("already exists")
)

// TimeLayout is how every timestamp is written: the spec's "YYYY-MM-DD HH:MM:SS", in UTC.
const TimeLayout = "2006-01-02 15:04:05"

// DBFile is the name of the database file inside the data folder.
const DBFile = "einvoice.db"

//go:embed migrations
var migrationFiles embed.FS

// Store is the open database. On SQLite: one writer connection (SQLite allows one writer at a time, so
// queueing in Go is cheaper than busy-waiting in SQLite) and a pool of read-only connections. On
// PostgreSQL: one pool for both, and concurrent write transactions.
type Store struct {
	writer         *sql.DB
	reader         *sql.DB
	d              dialect
	pgConfig       *pgx.ConnConfig // PostgreSQL: how to open a connection of one's own (Listen)
	secrets        *secretBox
	ids            *publicIDs
	tokens         briefCache[[32]byte, AccessToken]         // access tokens found valid, by hash (briefcache.go)
	entityAccess   briefCache[entityAccessKey, entityAccess] // EntityAccess answers that let a request through
	platformTokens briefCache[[32]byte, Credential]          // platform credentials found enabled, by their token's hash
	blocks         briefCache[string, time.Time]             // shared counters' blocks, until when (CounterBlocked)
	now            func() time.Time

	checkpoints *checkpointer // SQLite: copies the WAL into the database (checkpoint.go)

	writeTurn chan struct{} // holds a token while a write transaction runs
	queueMu   sync.Mutex
	queue     []*queuedWrite // workflow writes waiting to be committed together
}

// Open opens (creating if needed) the SQLite database in dataDir and applies pending migrations.
// secretKey encrypts client secrets at rest; it must be the same on every start.
func Open(ctx context.Context, dataDir string, secretKey []byte) (*Store, error) {
	box, err := newSecretBox(secretKey)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dataDir, DBFile)
	writer, err := openDB(dsn(path, false))
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	s := newStore(writer, nil, box, sqliteDialect, 1)
	if err := s.migrate(ctx); err != nil {
		writer.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	reader, err := openDB(dsn(path, true))
	if err != nil {
		writer.Close()
		return nil, err
	}
	readers := max(4, 2*runtime.NumCPU())
	reader.SetMaxOpenConns(readers)
	reader.SetMaxIdleConns(readers)
	s.reader = reader
	checkpoints, err := openDB(dsn(path, false))
	if err != nil {
		s.Close()
		return nil, err
	}
	checkpoints.SetMaxOpenConns(1)
	s.checkpoints = s.startCheckpoints(checkpoints, checkpointEvery, restartFrames)
	return s, nil
}

// newStore is a store over its pools; writers bounds the write transactions under way at once.
func newStore(writer, reader *sql.DB, box *secretBox, d dialect, writers int) *Store {
	return &Store{writer: writer, reader: reader, secrets: box, ids: newPublicIDs(box.mac("public identifiers", nil)),
		now: time.Now, d: d, writeTurn: make(chan struct{}, writers)}
}

// dsn puts the pragmas in the connection string so that every pooled connection gets them:
// busy_timeout first, WAL, foreign keys; writers take the write lock at BEGIN (immediate) so that
// a transaction never fails half-way on lock upgrade.
func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	// NORMAL in WAL mode never loses a committed transaction to a process crash (kill -9); only an
	// operating-system crash can roll back the last commits.
	q.Add("_pragma", "synchronous(NORMAL)")
	// Temporary files in memory: the savepoint journal of a group commit (see writeGrouped) would
	// otherwise spill to a file past 64 KiB and cost a system call per page.
	q.Add("_pragma", "temp_store(MEMORY)")
	// No commit copies the WAL into the database: the store's checkpointer does (checkpoint.go).
	q.Add("_pragma", "wal_autocheckpoint(0)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
	}
	return "file:" + path + "?" + q.Encode()
}

// Close stops the checkpoints and closes both pools; SQLite copies the rest of the WAL into the
// database when the last connection closes.
func (s *Store) Close() error {
	if s.checkpoints != nil {
		s.checkpoints.close()
	}
	var errs []error
	if s.reader != nil && s.reader != s.writer {
		errs = append(errs, s.reader.Close())
	}
	errs = append(errs, s.writer.Close())
	return errors.Join(errs...)
}

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.reader.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// write runs fn in one immediate transaction on the writer connection.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.takeTurn(ctx); err != nil {
		return err
	}
	defer s.endTurn()
	return s.transaction(ctx, fn)
}

// takeTurn waits for one of the writers' turns (on SQLite, the one writer's); endTurn gives it back.
func (s *Store) takeTurn(ctx context.Context) error {
	select {
	case s.writeTurn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) endTurn() { <-s.writeTurn }

// transaction runs fn in one transaction; a panic in fn rolls it back before it goes on. On
// PostgreSQL, a transaction that lost a race with another (a deadlock) runs again.
func (s *Store) transaction(ctx context.Context, fn func(tx *sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.transactionOnce(ctx, fn)
		if attempt == maxAttempts || !retryable(err) {
			return err
		}
	}
}

// errRaced: a transaction found no row for a key, and another transaction made that row before this
// one could (PostgreSQL). It runs again, and then finds the row.
var errRaced = fmt.Errorf("%w: a concurrent transaction wrote the same key", ErrConflict)

// maxAttempts bounds how many times a transaction that lost races runs.
const maxAttempts = 5

func (s *Store) transactionOnce(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			tx.Rollback()
			panic(p)
		}
	}()
	if err := fn(tx); err != nil {
		tx.Rollback()
		return mapError(err)
	}
	return mapError(tx.Commit())
}

// Group commit: the workflows' writes (Update) that arrive while another write transaction runs wait
// in a queue, and the next one to get the writer runs all of them in one transaction, each inside its
// own savepoint, so that an error rolls back only its own writes. One commit then writes the pages
// they share (the tables' and indexes' last leaves) once, instead of once per write. A caller returns
// only when its writes are committed (or failed), exactly as with a transaction of its own.

// maxGroup bounds how many writes one transaction commits together.
const maxGroup = 32

// queuedWrite is one write waiting for the writer; done is closed when err is its outcome.
type queuedWrite struct {
	ctx      context.Context
	fn       func(tx *sql.Tx) error
	err      error
	panicked any // what fn panicked with, raised again in the caller's goroutine
	done     chan struct{}
}

// capture runs f as w's work, keeping its error, or its panic for w's caller.
func (w *queuedWrite) capture(f func() error) {
	defer func() {
		if p := recover(); p != nil {
			w.panicked, w.err = p, fmt.Errorf("store: write panicked: %v", p)
		}
	}()
	w.err = f()
}

// writeGrouped runs fn in a write transaction, possibly together with other grouped writes. fn must
// not let its statements be interrupted (a cancelled statement inside a transaction rolls back the
// whole transaction): its statements use a context that is never cancelled.
func (s *Store) writeGrouped(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.d.shared { // PostgreSQL runs the writes side by side
		if err := s.takeTurn(ctx); err != nil {
			return err
		}
		defer s.endTurn()
		return s.transaction(context.WithoutCancel(ctx), fn)
	}
	w := &queuedWrite{ctx: ctx, fn: fn, done: make(chan struct{})}
	s.queueMu.Lock()
	s.queue = append(s.queue, w)
	s.queueMu.Unlock()
	select {
	case <-w.done: // another caller committed it
	case s.writeTurn <- struct{}{}:
		s.commitUntilDone(w)
		<-s.writeTurn
	}
	if w.panicked != nil {
		panic(w.panicked)
	}
	return w.err
}

// commitUntilDone commits queued groups until w's is done.
func (s *Store) commitUntilDone(w *queuedWrite) {
	for {
		select {
		case <-w.done:
			return
		default:
		}
		s.queueMu.Lock()
		n := min(len(s.queue), maxGroup)
		group := s.queue[:n:n]
		s.queue = s.queue[n:]
		s.queueMu.Unlock()
		s.commitGroup(group)
	}
}

// commitGroup runs the writes of group in one transaction and closes their done channels.
func (s *Store) commitGroup(group []*queuedWrite) {
	if len(group) == 1 {
		w := group[0]
		if w.err = w.ctx.Err(); w.err == nil {
			w.capture(func() error { return s.transaction(context.WithoutCancel(w.ctx), w.fn) })
		}
		close(w.done)
		return
	}
	// The transaction belongs to no single caller: a caller that gives up does not end it.
	ctx := context.Background()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		for _, w := range group {
			w.err = err
			close(w.done)
		}
		return
	}
	var committed []*queuedWrite // the writes the commit carries
	for i, w := range group {
		if w.err = w.ctx.Err(); w.err != nil {
			close(w.done)
			continue
		}
		if err := inSavepoint(ctx, tx, w); err != nil {
			// The transaction itself failed: none of the writes it ran so far is kept. The writes
			// not yet run are committed as a group of their own.
			tx.Rollback()
			for _, c := range committed {
				c.err = fmt.Errorf("store: a write grouped with this one ended the transaction: %w", err)
				close(c.done)
			}
			if w.err == nil {
				w.err = err
			}
			close(w.done)
			if rest := group[i+1:]; len(rest) > 0 {
				s.commitGroup(rest)
			}
			return
		}
		if w.err != nil {
			close(w.done)
			continue
		}
		committed = append(committed, w)
	}
	err = mapError(tx.Commit())
	for _, w := range committed {
		w.err = err
		close(w.done)
	}
}

// inSavepoint runs w inside a savepoint of tx: w.err is its own outcome, with its writes rolled back
// when it failed; the error returned means that the transaction itself is lost.
func inSavepoint(ctx context.Context, tx *sql.Tx, w *queuedWrite) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT grouped_write`); err != nil {
		return err
	}
	if w.capture(func() error { return w.fn(tx) }); w.err != nil {
		w.err = mapError(w.err)
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO grouped_write`); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `RELEASE grouped_write`)
	return err
}

// mapError turns constraint violations of either engine into the package's sentinels.
func mapError(err error) error {
	if pgCode(err) == pgUniqueViolation {
		return fmt.Errorf("%w: %w", ErrConflict, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %v", ErrConflict, err)
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

func (s *Store) timestamp() string { return s.now().UTC().Format(TimeLayout) }

// migrate applies every embedded migration of the engine not yet recorded, each in its own
// transaction. On PostgreSQL the processes starting together take turns (an advisory lock).
func (s *Store) migrate(ctx context.Context) error {
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if s.d.shared {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, lockKey("migrations")); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(?)`, lockKey("migrations"))
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrationFiles, "migrations/"+s.d.name+"/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		version := strings.TrimSuffix(filepath.Base(name), ".sql")
		body, err := migrationFiles.ReadFile(name)
		if err != nil {
			return err
		}
		if err := s.applyMigration(ctx, conn, version, string(body)); err != nil {
			return fmt.Errorf("%s: %w", version, err)
		}
	}
	return nil
}

// applyMigration runs one migration and records it, in one transaction, unless it is recorded.
func (s *Store) applyMigration(ctx context.Context, conn *sql.Conn, version, body string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&done); err != nil || done > 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, s.timestamp()); err != nil {
		return err
	}
	return tx.Commit()
}

// Setting reads an installation setting; ErrNotFound when it was never set.
func (s *Store) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := s.reader.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	return v, mapError(err)
}

// SetSetting writes an installation setting.
func (s *Store) SetSetting(ctx context.Context, key, value string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
}

// Optimize lets SQLite refresh the statistics its query planner uses and checkpoints the WAL.
// PostgreSQL's autovacuum does this work on its own.
func (s *Store) Optimize(ctx context.Context) error {
	if s.d.shared {
		return nil
	}
	_, err := s.writer.ExecContext(ctx, `PRAGMA optimize; PRAGMA wal_checkpoint(PASSIVE);`)
	return err
}

// SetClock replaces the store's clock (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }
