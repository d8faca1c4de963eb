package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Write transactions on PostgreSQL travel in few round trips. Each round trip wakes a database
// backend and the server's goroutine once, and on a busy machine those wake-ups cost more than the
// statements: a transaction's BEGIN is sent with its first statement, the writes whose outcome it
// needs only at its end (Tx.later) wait and go with its next statement, and the last of them go with
// its COMMIT, all as one pgx batch. Reads see the writes sent before them, since these are sent first.
// A read the transaction announces (readAhead, Tx.ExpectDocumentByKey) goes with its next statement
// too, and its rows are kept for the same read when the transaction makes it.

// waitingStatement is a statement of a transaction that goes to the server with the next one.
type waitingStatement struct {
	query string
	args  []any
	rows  *int64 // when set, gets the number of rows the statement wrote
	ahead bool   // a read whose rows are kept for the transaction's same read
}

// sendLaterKey marks a write's context: the write may wait for the transaction's next statement.
type sendLaterKey struct{}

// sendLater is ctx for a write that may wait until the transaction's next statement, or its commit,
// and go to the server with it. rows, when not nil, gets the number of rows the write wrote once it
// is sent; until then its result says 0. On SQLite (no network) the write runs at once.
func sendLater(ctx context.Context, rows *int64) context.Context {
	return context.WithValue(ctx, sendLaterKey{}, &rows)
}

// readAheadKey marks a read's context: the read is announced (see readAhead).
type readAheadKey struct{}

// readAhead is ctx for a read announced to a PostgreSQL transaction: it goes to the server with the
// transaction's next statement, and its rows answer the same read (same statement, same arguments)
// when the transaction makes it. Only for reads whose answer the statements in between cannot change.
func readAhead(ctx context.Context) context.Context {
	return context.WithValue(ctx, readAheadKey{}, true)
}

// BeginTx starts a transaction whose BEGIN waits for its first statement. Transactions with options
// (the lists' read-only snapshots) begin at once, as pgx begins them.
func (c *placeholderConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.ReadOnly || sql.IsolationLevel(opts.Isolation) != sql.LevelDefault {
		return c.Conn.BeginTx(ctx, opts)
	}
	c.waiting = append(c.waiting[:0], waitingStatement{query: "begin"})
	c.inTx, c.begun, c.failed, c.txCtx = true, false, nil, context.WithoutCancel(ctx)
	return pipelinedTx{c}, nil
}

// pipelinedTx is a transaction begun by BeginTx.
type pipelinedTx struct{ c *placeholderConn }

// Commit sends the waiting writes and COMMIT together. When one of the transaction's statements
// failed, it rolls back and returns that first error, whatever its caller did with it.
func (t pipelinedTx) Commit() error {
	c := t.c
	defer c.endTx()
	if !c.begun && len(c.waiting) == 1 { // nothing ran: there is nothing to commit
		return nil
	}
	if c.failed != nil {
		c.rollback()
		return c.failed
	}
	results, err := c.sendWaiting(c.txCtx, "commit", nil)
	if err != nil {
		c.rollback()
		return err
	}
	tag, err := results.Exec()
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() != "COMMIT" { // the server rolled back instead
		err = pgx.ErrTxCommitRollback
	}
	if err != nil {
		c.rollback()
	}
	return err
}

// Rollback drops the waiting writes and rolls back what the server has of the transaction.
func (t pipelinedTx) Rollback() error {
	c := t.c
	defer c.endTx()
	if !c.begun {
		return nil
	}
	return c.rollback()
}

func (c *placeholderConn) rollback() error {
	c.waiting = nil
	if !c.begun {
		return nil
	}
	_, err := c.Conn.Conn().Exec(c.txCtx, "rollback")
	return err
}

func (c *placeholderConn) endTx() {
	c.waiting, c.inTx, c.begun, c.failed, c.txCtx, c.readRows = nil, false, false, nil, nil, nil
}

// wait keeps a statement of the open transaction for its next round trip.
func (c *placeholderConn) wait(w waitingStatement, args []driver.NamedValue) {
	w.query, w.args = dollarPlaceholders(w.query), argValues(args)
	c.waiting = append(c.waiting, w)
}

// argValues is the values of a statement's arguments, as pgx takes them.
func argValues(args []driver.NamedValue) []any {
	values := make([]any, len(args))
	for i, a := range args {
		values[i] = a.Value
	}
	return values
}

// readRowsKey is the key of a read's kept rows: its statement and arguments.
func readRowsKey(query string, args []any) string {
	return fmt.Sprintf("%s\x00%#v", query, args)
}

// keptRows are the rows of a read that went ahead of the transaction's asking for them.
type keptRows struct {
	columns []string
	values  [][]driver.Value
}

func (r *keptRows) Columns() []string { return r.columns }
func (r *keptRows) Close() error      { return nil }

func (r *keptRows) Next(dest []driver.Value) error {
	if len(r.values) == 0 {
		return io.EOF
	}
	copy(dest, r.values[0])
	r.values = r.values[1:]
	return nil
}

// keepRows reads the rows of a read sent ahead.
func (c *placeholderConn) keepRows(w waitingStatement, results pgx.BatchResults) error {
	rows, err := results.Query()
	if err != nil {
		return err
	}
	r := &batchRows{rows: rows, conn: c}
	kept := &keptRows{columns: r.Columns()}
	for {
		values := make([]driver.Value, len(kept.columns))
		if err := r.Next(values); err == io.EOF {
			break
		} else if err != nil {
			rows.Close()
			return err
		}
		kept.values = append(kept.values, values)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if c.readRows == nil {
		c.readRows = map[string]*keptRows{}
	}
	c.readRows[readRowsKey(w.query, w.args)] = kept
	return nil
}

// dropAnnounced takes out of the waiting statements an announced read that is query itself: the
// transaction makes it before it went ahead.
func (c *placeholderConn) dropAnnounced(query string, args []any) {
	key := readRowsKey(dollarPlaceholders(query), args)
	waiting := c.waiting[:0]
	for _, w := range c.waiting {
		if !w.ahead || readRowsKey(w.query, w.args) != key {
			waiting = append(waiting, w)
		}
	}
	c.waiting = waiting
}

// remember keeps the first error of the open transaction's statements (see Commit).
func (c *placeholderConn) remember(err error) {
	if err != nil && c.inTx && c.failed == nil {
		c.failed = err
	}
}

// takeKeptRows is the kept rows of a read, once.
func (c *placeholderConn) takeKeptRows(query string, args []driver.NamedValue) (*keptRows, bool) {
	if len(c.readRows) == 0 {
		return nil, false
	}
	key := readRowsKey(dollarPlaceholders(query), argValues(args))
	kept, ok := c.readRows[key]
	delete(c.readRows, key)
	return kept, ok
}

// sendWaiting sends the waiting statements and then query (with args), in one round trip, and reads
// the waiting ones' results. It returns the batch's results at query's, which the caller reads and
// closes; with no query, nil. The first error of a waiting statement is the transaction's (see
// Commit).
func (c *placeholderConn) sendWaiting(ctx context.Context, query string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	for _, w := range c.waiting {
		b.Queue(w.query, w.args...)
	}
	if query != "" {
		b.Queue(query, args...)
	}
	waiting := c.waiting
	c.waiting = c.waiting[:0]
	c.begun = true
	results := c.Conn.Conn().SendBatch(ctx, b)
	for _, w := range waiting {
		err := error(nil)
		if w.ahead {
			err = c.keepRows(w, results)
		} else {
			var tag pgconn.CommandTag
			if tag, err = results.Exec(); err == nil && w.rows != nil {
				*w.rows += tag.RowsAffected()
			}
		}
		if err != nil {
			results.Close()
			c.remember(err)
			return nil, err
		}
	}
	if query == "" {
		return nil, results.Close()
	}
	return results, nil
}

// waitingFirst tells whether a statement must go with waiting ones (or wait itself) and gives its
// arguments; statements without arguments may be several (a migration) and go after them, alone.
func (c *placeholderConn) waitingFirst(args []driver.NamedValue) ([]any, bool) {
	if len(c.waiting) == 0 || len(args) == 0 {
		return nil, false
	}
	return argValues(args), true
}

// sendWaitingAlone sends the waiting statements by themselves, before a statement that cannot join
// them.
func (c *placeholderConn) sendWaitingAlone(ctx context.Context) error {
	if len(c.waiting) == 0 {
		return nil
	}
	_, err := c.sendWaiting(ctx, "", nil)
	return err
}

// execWithWaiting runs a write with the waiting statements before it, in one round trip.
func (c *placeholderConn) execWithWaiting(ctx context.Context, query string, args []any) (driver.Result, error) {
	results, err := c.sendWaiting(ctx, dollarPlaceholders(query), args)
	if err != nil {
		return nil, err
	}
	tag, err := results.Exec()
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		c.remember(err)
		return nil, err
	}
	return driver.RowsAffected(tag.RowsAffected()), nil
}

// queryWithWaiting runs a query with the waiting statements before it, in one round trip.
func (c *placeholderConn) queryWithWaiting(ctx context.Context, query string, args []any) (driver.Rows, error) {
	results, err := c.sendWaiting(ctx, dollarPlaceholders(query), args)
	if err != nil {
		return nil, err
	}
	rows, err := results.Query()
	if err != nil {
		results.Close()
		c.remember(err)
		return nil, err
	}
	return &batchRows{rows: rows, results: results, conn: c}, nil
}

// batchRows is the rows of a query sent in a batch, as database/sql reads them: values of the types
// pgx's own driver gives (int64, float64, bool, string, []byte, time.Time).
type batchRows struct {
	rows    pgx.Rows
	results pgx.BatchResults
	conn    *placeholderConn
	closed  bool
}

func (r *batchRows) Columns() []string {
	fields := r.rows.FieldDescriptions()
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

func (r *batchRows) Next(dest []driver.Value) error {
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			r.conn.remember(err)
			return err
		}
		return io.EOF
	}
	values, err := r.rows.Values()
	if err != nil {
		return err
	}
	fields := r.rows.FieldDescriptions()
	raw := r.rows.RawValues()
	for i, v := range values {
		if fields[i].DataTypeOID == pgtype.JSONOID && raw[i] != nil {
			v = string(raw[i]) // the stored text, not pgx's decoding of it
		}
		dest[i] = driverValue(v, raw[i])
	}
	return nil
}

func (r *batchRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.rows.Close()
	err := r.rows.Err()
	if cerr := r.results.Close(); err == nil {
		err = cerr
	}
	r.conn.remember(err)
	return err
}

// driverValue is v as one of database/sql's driver values; a value of another type (a column type
// the store does not use) is its bytes as the server sent them.
func driverValue(v any, raw []byte) driver.Value {
	switch v := v.(type) {
	case nil, int64, float64, bool, string, []byte, time.Time:
		return v
	case int32:
		return int64(v)
	case int16:
		return int64(v)
	case float32:
		return float64(v)
	case driver.Valuer:
		if dv, err := v.Value(); err == nil && driver.IsValue(dv) {
			return dv
		}
	}
	return append([]byte(nil), raw...)
}
