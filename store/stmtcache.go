package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// The statement cache: SQLite spends more time parsing and planning a short statement than running
// it, and database/sql prepares a statement again for every ExecContext and QueryContext. Each
// connection therefore keeps the statements it ran, by their text, and runs them again with new
// arguments. The cache sits between database/sql and modernc.org/sqlite's driver, so the queries of
// the store are written as plain ExecContext/QueryContext calls and still run prepared.

// stmtCacheSize bounds the statements one connection keeps. The store's distinct statements (the
// list filters combine into a few dozen texts) fit; when more are used, the least recently used one
// is closed.
const stmtCacheSize = 256

// openDB opens a pool of SQLite connections that cache their prepared statements.
func openDB(dsn string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(stmtCacheConnector{c}), nil
}

type stmtCacheConnector struct{ driver.Connector }

// sqliteStmt is what the cache needs of the driver's prepared statement.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// sqliteConn is what the cache needs of modernc.org/sqlite's connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

func (c stmtCacheConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	if !ok {
		conn.Close()
		return nil, errors.New("store: the SQLite driver's connection lacks an interface the statement cache needs")
	}
	return &cachingConn{sqliteConn: sc, stmts: map[string]*cachedStmt{}}, nil
}

// cachingConn is one SQLite connection with its prepared statements. database/sql uses a connection
// from one goroutine at a time, so the cache needs no lock. BeginTx, PrepareContext, Ping,
// ResetSession and IsValid are the driver's.
type cachingConn struct {
	sqliteConn
	stmts map[string]*cachedStmt
	clock uint64 // counts uses, to find the least recently used statement

	prepared, reused uint64 // statistics, for tests
}

type cachedStmt struct {
	stmt     sqliteStmt
	lastUsed uint64
	busy     bool // rows of it are open: a second use while they are runs unprepared
}

// statement returns the prepared statement of query, preparing it on first use, or nil when the
// cached one is busy.
func (c *cachingConn) statement(ctx context.Context, query string) (*cachedStmt, error) {
	c.clock++
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		c.reused++
		s.lastUsed = c.clock
		return s, nil
	}
	prepared, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	stmt, ok := prepared.(sqliteStmt)
	if !ok {
		prepared.Close()
		return nil, errors.New("store: the SQLite driver's statement lacks an interface the statement cache needs")
	}
	c.prepared++
	if len(c.stmts) >= stmtCacheSize {
		c.evict()
	}
	s := &cachedStmt{stmt: stmt, lastUsed: c.clock}
	c.stmts[query] = s
	return s, nil
}

// evict closes the least recently used statement that is not busy.
func (c *cachingConn) evict() {
	var oldest string
	var found *cachedStmt
	for q, s := range c.stmts {
		if !s.busy && (found == nil || s.lastUsed < found.lastUsed) {
			oldest, found = q, s
		}
	}
	if found != nil {
		delete(c.stmts, oldest)
		found.stmt.Close()
	}
}

// ExecContext runs query as a cached prepared statement.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.statement(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return s.stmt.ExecContext(ctx, args)
}

// QueryContext runs query as a cached prepared statement; the statement is busy until its rows are
// closed.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.statement(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := s.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &cachedRows{Rows: rows, stmt: s}, nil
}

// cachedRows frees its statement for the next use when closed.
type cachedRows struct {
	driver.Rows
	stmt *cachedStmt
}

func (r *cachedRows) Close() error {
	r.stmt.busy = false
	return r.Rows.Close()
}

// Close closes the cached statements, then the connection.
func (c *cachingConn) Close() error {
	var errs []error
	for q, s := range c.stmts {
		errs = append(errs, s.stmt.Close())
		delete(c.stmts, q)
	}
	return errors.Join(append(errs, c.sqliteConn.Close())...)
}
