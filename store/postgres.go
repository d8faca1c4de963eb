package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL, through pgx's database/sql driver: several einvoice processes share one database. The
// statements are the store's own (written with ? placeholders); each connection rewrites them into
// PostgreSQL's $n form, and pgx prepares and caches them per connection.

// postgresConns is the pool of one process. Writes run concurrently (PostgreSQL locks rows, not the
// database), so the pool is also the bound on concurrent write transactions.
const postgresConns = 16

// OpenPostgres connects to the PostgreSQL database at dsn (a postgres:// URL or key=value string) and
// applies pending migrations. secretKey is the installation's key, as for Open.
func OpenPostgres(ctx context.Context, dsn string, secretKey []byte) (*Store, error) {
	box, err := newSecretBox(secretKey)
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("the PostgreSQL address: %w", err)
	}
	return openPostgres(ctx, cfg, box)
}

func openPostgres(ctx context.Context, cfg *pgx.ConnConfig, box *secretBox) (*Store, error) {
	db := sql.OpenDB(placeholderConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(postgresConns)
	db.SetMaxIdleConns(postgresConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := newStore(db, db, box, postgresDialect, postgresConns-2)
	s.pgConfig = cfg
	if err := s.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate PostgreSQL: %w", err)
	}
	return s, nil
}

// placeholderConnector gives out pgx connections that take ? placeholders.
type placeholderConnector struct{ driver.Connector }

func (c placeholderConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("store: unexpected PostgreSQL connection %T", conn)
	}
	return &placeholderConn{Conn: pc}, nil
}

// placeholderConn is a pgx connection whose statements are rewritten from ? to $n placeholders, and
// whose write transactions send their statements together where they can (postgres_tx.go).
type placeholderConn struct {
	*stdlib.Conn

	inTx     bool                 // a transaction begun by BeginTx is open
	begun    bool                 // its BEGIN has been sent
	waiting  []waitingStatement   // statements that go to the server with the next one
	failed   error                // the transaction's first failed statement
	txCtx    context.Context      // the transaction's context, for its COMMIT or ROLLBACK
	readRows map[string]*keptRows // the rows of reads sent ahead, by statement and arguments
}

func (c *placeholderConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.sendWaitingAlone(ctx); err != nil {
		return nil, err
	}
	return c.Conn.PrepareContext(ctx, dollarPlaceholders(query))
}

func (c *placeholderConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *placeholderConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if rows, ok := ctx.Value(sendLaterKey{}).(**int64); ok && c.inTx && len(args) > 0 {
		c.wait(waitingStatement{query: query, rows: *rows}, args)
		return driver.RowsAffected(0), nil
	}
	if ctx.Value(readAheadKey{}) != nil && c.inTx && len(args) > 0 {
		c.wait(waitingStatement{query: query, ahead: true}, args)
		return driver.RowsAffected(0), nil
	}
	if values, ok := c.waitingFirst(args); ok {
		return c.execWithWaiting(ctx, query, values)
	}
	if err := c.sendWaitingAlone(ctx); err != nil {
		return nil, err
	}
	if len(args) > 0 { // a statement without arguments may be several (a migration): left as it is
		query = dollarPlaceholders(query)
	}
	res, err := c.Conn.ExecContext(ctx, query, args)
	c.remember(err)
	return res, err
}

func (c *placeholderConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if kept, ok := c.takeKeptRows(query, args); ok {
		return kept, nil
	}
	if values, ok := c.waitingFirst(args); ok {
		c.dropAnnounced(query, values) // this read is the one announced: it goes in its own place
		return c.queryWithWaiting(ctx, query, values)
	}
	if err := c.sendWaitingAlone(ctx); err != nil {
		return nil, err
	}
	if len(args) > 0 {
		query = dollarPlaceholders(query)
	}
	rows, err := c.Conn.QueryContext(ctx, query, args)
	c.remember(err)
	return rows, err
}

// ResetSession drops what a connection handed back in the middle of a transaction still held.
func (c *placeholderConn) ResetSession(ctx context.Context) error {
	if c.inTx {
		return driver.ErrBadConn
	}
	return c.Conn.ResetSession(ctx)
}

// CheckNamedValue binds what SQLite takes and PostgreSQL would refuse as SQLite would store or match
// it. A Go bool is the integer 1 or 0, as SQLite's driver binds it: flags are integer columns on both
// engines (so that a copy of an SQLite installation keeps them as they are), and pgx encodes no bool
// into an integer. A string that is not valid UTF-8 or holds a NUL byte (PostgreSQL's text holds
// neither) has U+FFFD in their place: a lookup by it then finds nothing, as on SQLite, instead of
// failing, and a header a client sent is kept readable.
func (c *placeholderConn) CheckNamedValue(nv *driver.NamedValue) error {
	nv.Value = postgresValue(nv.Value)
	return c.Conn.CheckNamedValue(nv)
}

// postgresValue is v as the store binds it on PostgreSQL (see CheckNamedValue).
func postgresValue(v any) any {
	if s, ok := v.(string); ok {
		return postgresText(s)
	}
	if p, ok := v.(*bool); ok { // an optional flag: NULL when nil
		if p == nil {
			return nil
		}
		v = *p
	}
	if b, ok := v.(bool); ok {
		if b {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

// The rewritten statements are kept by their text: the store has a few hundred.
var (
	rewritten      sync.Map // query → query with $n placeholders
	rewrittenCount atomic.Int64
)

const maxRewritten = 4096

// dollarPlaceholders numbers the ? placeholders of query as $1, $2, …, leaving string literals,
// quoted identifiers and comments alone.
func dollarPlaceholders(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	if v, ok := rewritten.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		switch c := query[i]; {
		case c == '\'' || c == '"':
			end := strings.IndexByte(query[i+1:], c)
			if end < 0 {
				end = len(query) - i - 2
			}
			b.WriteString(query[i : i+end+2])
			i += end + 1
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query) - i
			}
			b.WriteString(query[i : i+end])
			i += end - 1
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	if rewrittenCount.Load() < maxRewritten {
		if _, loaded := rewritten.LoadOrStore(query, out); !loaded {
			rewrittenCount.Add(1)
		}
	}
	return out
}

// PostgreSQL's error codes the store acts on.
const (
	pgUniqueViolation      = "23505"
	pgSerializationFailure = "40001"
	pgDeadlockDetected     = "40P01"
)

// pgError is the PostgreSQL error in err's chain; an empty one when there is none.
func pgError(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return &pgconn.PgError{}
}

// pgCode is the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string { return pgError(err).Code }

// retryable: the transaction lost a race with another one and may simply run again.
func retryable(err error) bool {
	pe := pgError(err)
	return pe.Code == pgSerializationFailure || pe.Code == pgDeadlockDetected || errors.Is(err, errRaced) ||
		pe.Code == pgUniqueViolation && pe.ConstraintName == documentKey
}

// documentKey is the constraint of the documents' natural key: a document inserted with a key that a
// concurrent transaction took meanwhile (Tx.insertDocumentLater) violates it.
const documentKey = "documents_issuer_id_number_type_code_emission_date_key"

// lockKey is the 64-bit advisory lock key of a name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("einvoice:" + name))
	return int64(h.Sum64())
}

// TryLock takes the installation-wide lock called name, when no other process holds it: the singleton
// jobs run under it, on one process at a time. release gives it back; a process that dies loses it.
// On SQLite, where one process owns the database, the lock is always free.
func (s *Store) TryLock(ctx context.Context, name string) (release func(), ok bool, err error) {
	if !s.d.shared {
		return func() {}, true, nil
	}
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	key := lockKey(name)
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(?)`, key).Scan(&ok); err != nil || !ok {
		conn.Close()
		return nil, false, err
	}
	return func() {
		// Unlocked on its own session; should that fail, closing the connection would keep the lock
		// in a pooled session, so the connection is thrown away instead.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(?)`, key); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, true, nil
}

// Notify tells the other processes of the installation that there is work on channel (PostgreSQL's
// NOTIFY, delivered when the current transactions commit). On SQLite it does nothing.
func (s *Store) Notify(ctx context.Context, channel, payload string) error {
	if !s.d.shared {
		return nil
	}
	_, err := s.writer.ExecContext(ctx, `SELECT pg_notify(?, ?)`, channel, payload)
	return err
}

// Listen calls fn with the payload of every notification on channel until ctx ends, reconnecting
// when the connection is lost. On SQLite it returns at once: no other process writes the database.
func (s *Store) Listen(ctx context.Context, channel string, fn func(payload string)) error {
	if !s.d.shared {
		return nil
	}
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, channel, fn)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}

func (s *Store) listenOnce(ctx context.Context, channel string, fn func(string)) error {
	conn, err := pgx.ConnectConfig(ctx, s.pgConfig)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		fn(n.Payload)
	}
}

// postgresText is s as PostgreSQL's text can hold it: invalid UTF-8 and NUL bytes become U+FFFD.
func postgresText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
}
