package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Moving an installation from SQLite to PostgreSQL: every row of every table, ids and bytes unchanged,
// into a freshly migrated, empty PostgreSQL database, in one PostgreSQL transaction (a copy that fails
// leaves the target as empty as it found it). The tables are the ones SQLite's schema holds, so that a
// table a later migration adds is copied without anyone listing it here.

// Why a copy is refused.
var (
	ErrTargetNotEmpty   = errors.New("the PostgreSQL database is not empty")
	ErrVersionsDiffer   = errors.New("the two databases are at different migrations")
	ErrSchemasDiffer    = errors.New("the two databases' tables differ")
	ErrCountMismatch    = errors.New("the copy's row counts differ from the source's")
	errWrongCopyEngines = errors.New("store: a copy goes from an SQLite store to a PostgreSQL store")
)

// TableCount is how many rows a table holds.
type TableCount struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
}

// CopyToPostgres copies everything s (SQLite) holds into dst (PostgreSQL, opened by OpenPostgres, so
// migrated) and returns the row count of each table, in the order copied. It refuses unless dst holds
// no rows and both databases are at the same migration. The source is read in one read transaction:
// writes made to it meanwhile are not copied, so the installation should be stopped first.
//
// During the copy the target's own triggers are off: the rows they maintain (the counters of
// entity_counts) are copied as they are rather than recounted, and rows that triggers would fill in
// (a history entry's recipient) keep their value. Identity sequences continue after the highest id
// copied. The row counts of both sides are compared before the transaction commits; then the copied
// tables are analysed.
func (s *Store) CopyToPostgres(ctx context.Context, dst *Store) ([]TableCount, error) {
	if s.d.name != sqliteDialect.name || dst.d.name != postgresDialect.name {
		return nil, errWrongCopyEngines
	}
	src, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer src.Rollback()
	tables, err := sqliteTables(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("read the SQLite schema: %w", err)
	}
	conn, err := dst.writer.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var counts []TableCount
	err = conn.Raw(func(driverConn any) error {
		pc, ok := driverConn.(*placeholderConn)
		if !ok {
			return fmt.Errorf("store: unexpected PostgreSQL connection %T", driverConn)
		}
		pg := pc.Conn.Conn()
		tx, err := pg.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		c := &copier{src: src, dst: tx, tables: tables}
		if counts, err = c.run(ctx); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		// The planner's statistics of the copied tables, which autovacuum would gather only within
		// a minute or so: until then it may pick a worse index (an issuer's documents by date for
		// the look-up of one document by its number).
		_, err = pg.Exec(ctx, "ANALYZE")
		return err
	})
	return counts, err
}

// sqliteTable is a table of the source: its columns in order, and the tables its foreign keys name.
type sqliteTable struct {
	name       string
	columns    []string
	references []string
}

// sqliteTables lists the source's tables (not SQLite's own, not the migrations' ledger), each after
// the tables it references, so that foreign keys hold at every row copied.
func sqliteTables(ctx context.Context, tx *sql.Tx) ([]sqliteTable, error) {
	names, err := queryStrings(ctx, tx, `SELECT name FROM sqlite_schema
		WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name <> 'schema_migrations' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*sqliteTable, len(names))
	for _, name := range names {
		t := &sqliteTable{name: name}
		if t.columns, err = queryStrings(ctx, tx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, name); err != nil {
			return nil, err
		}
		refs, err := queryStrings(ctx, tx, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, name)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if r != name { // a row referring to its own table: none today, and no order could help it
				t.references = append(t.references, r)
			}
		}
		byName[name] = t
	}
	// Depth-first: a table goes after everything it references.
	var ordered []sqliteTable
	state := map[string]int{} // 1: being placed, 2: placed
	var place func(name string, path []string) error
	place = func(name string, path []string) error {
		t, ok := byName[name]
		if !ok {
			return fmt.Errorf("%s references %s, which does not exist", path[len(path)-1], name)
		}
		switch state[name] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("the foreign keys of %s form a cycle", strings.Join(append(path, name), " → "))
		}
		state[name] = 1
		for _, r := range t.references {
			if err := place(r, append(path, name)); err != nil {
				return err
			}
		}
		state[name] = 2
		ordered = append(ordered, *t)
		return nil
	}
	for _, name := range names {
		if err := place(name, nil); err != nil {
			return nil, err
		}
	}
	return ordered, nil
}

// copier is one copy under way: the source's read transaction, the target's transaction.
type copier struct {
	src    *sql.Tx
	dst    pgx.Tx
	tables []sqliteTable
}

func (c *copier) run(ctx context.Context) ([]TableCount, error) {
	if err := c.checkVersions(ctx); err != nil {
		return nil, err
	}
	targets, err := c.targetTables(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.checkTables(targets); err != nil {
		return nil, err
	}
	if err := c.checkEmpty(ctx, targets); err != nil {
		return nil, err
	}
	if err := c.setTriggers(ctx, targets, "DISABLE"); err != nil {
		return nil, err
	}
	for _, t := range c.tables {
		if err := c.copyTable(ctx, t, targets[t.name]); err != nil {
			return nil, fmt.Errorf("copy %s: %w", t.name, err)
		}
	}
	if err := c.setTriggers(ctx, targets, "ENABLE"); err != nil {
		return nil, err
	}
	for _, t := range c.tables {
		if err := c.continueSequences(ctx, t.name); err != nil {
			return nil, fmt.Errorf("the id sequences of %s: %w", t.name, err)
		}
	}
	return c.compareCounts(ctx)
}

// checkVersions: the migrations applied on each side end at the same number, so that both schemas
// are the same one written for each engine.
func (c *copier) checkVersions(ctx context.Context) error {
	srcVersions, err := queryStrings(ctx, c.src, `SELECT version FROM schema_migrations`)
	if err != nil {
		return err
	}
	rows, err := c.dst.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return err
	}
	dstVersions, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if from, to := migrationLevel(srcVersions), migrationLevel(dstVersions); from != to {
		return fmt.Errorf("%w: SQLite is at migration %d, PostgreSQL at %d; open both with the same einvoice version",
			ErrVersionsDiffer, from, to)
	}
	return nil
}

// migrationLevel is the highest migration number among versions ("0016_schema" is 16).
func migrationLevel(versions []string) int {
	level := 0
	for _, v := range versions {
		number, _, _ := strings.Cut(v, "_")
		if n, err := strconv.Atoi(number); err == nil {
			level = max(level, n)
		}
	}
	return level
}

// columnTypes are the columns of a target table, each with its type's name (pg_type.typname).
type columnTypes map[string]string

// targetTables lists the target's tables in its current schema, but the migrations' ledger.
func (c *copier) targetTables(ctx context.Context) (map[string]columnTypes, error) {
	rows, err := c.dst.Query(ctx, `SELECT table_name::text, column_name::text, udt_name::text
		FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'
			AND table_name IN (SELECT table_name FROM information_schema.tables
				WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')`)
	if err != nil {
		return nil, err
	}
	tables := map[string]columnTypes{}
	var table, column, typ string
	_, err = pgx.ForEachRow(rows, []any{&table, &column, &typ}, func() error {
		if tables[table] == nil {
			tables[table] = columnTypes{}
		}
		tables[table][column] = typ
		return nil
	})
	return tables, err
}

// checkTables: every source table and column exists in the target.
func (c *copier) checkTables(targets map[string]columnTypes) error {
	var missing []string
	for _, t := range c.tables {
		target, ok := targets[t.name]
		if !ok {
			missing = append(missing, t.name)
			continue
		}
		for _, col := range t.columns {
			if _, ok := target[col]; !ok {
				missing = append(missing, t.name+"."+col)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: PostgreSQL has no %s", ErrSchemasDiffer, strings.Join(missing, ", "))
	}
	return nil
}

// checkEmpty: no table of the target holds a row.
func (c *copier) checkEmpty(ctx context.Context, targets map[string]columnTypes) error {
	var filled []string
	for _, name := range slices.Sorted(maps.Keys(targets)) {
		var holds bool
		if err := c.dst.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+quoteIdent(name)+`)`).Scan(&holds); err != nil {
			return err
		}
		if holds {
			filled = append(filled, name)
		}
	}
	if len(filled) > 0 {
		return fmt.Errorf("%w: %s hold rows; copy into a new, empty database", ErrTargetNotEmpty, strings.Join(filled, ", "))
	}
	return nil
}

// setTriggers disables or enables the target's own triggers (not the foreign keys' system triggers).
func (c *copier) setTriggers(ctx context.Context, targets map[string]columnTypes, action string) error {
	for _, name := range slices.Sorted(maps.Keys(targets)) {
		if _, err := c.dst.Exec(ctx, `ALTER TABLE `+quoteIdent(name)+` `+action+` TRIGGER USER`); err != nil {
			return err
		}
	}
	return nil
}

// copyTable streams the rows of t from the source into the target (PostgreSQL's COPY), one row in
// memory at a time.
func (c *copier) copyTable(ctx context.Context, t sqliteTable, target columnTypes) error {
	quoted := make([]string, len(t.columns))
	for i, col := range t.columns {
		quoted[i] = quoteIdent(col)
	}
	rows, err := c.src.QueryContext(ctx, `SELECT `+strings.Join(quoted, ", ")+` FROM `+quoteIdent(t.name))
	if err != nil {
		return err
	}
	defer rows.Close()
	types := make([]string, len(t.columns))
	for i, col := range t.columns {
		types[i] = target[col]
	}
	source := &rowSource{rows: rows, types: types, values: make([]any, len(t.columns))}
	_, err = c.dst.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, source)
	return err
}

// continueSequences moves the sequence behind each identity or serial column of table past the
// highest value copied, so that the next row gets a new id.
func (c *copier) continueSequences(ctx context.Context, table string) error {
	rows, err := c.dst.Query(ctx, `SELECT column_name::text, pg_get_serial_sequence(quote_ident(table_name), column_name)
		FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1
			AND pg_get_serial_sequence(quote_ident(table_name), column_name) IS NOT NULL`, table)
	if err != nil {
		return err
	}
	sequences := map[string]string{} // column → its sequence
	var column, sequence string
	if _, err := pgx.ForEachRow(rows, []any{&column, &sequence}, func() error {
		sequences[column] = sequence
		return nil
	}); err != nil {
		return err
	}
	for column, sequence := range sequences {
		// setval of NULL (an empty table) leaves the sequence at its start.
		if _, err := c.dst.Exec(ctx, `SELECT setval($1, (SELECT max(`+quoteIdent(column)+`) FROM `+quoteIdent(table)+`))`,
			sequence); err != nil {
			return err
		}
	}
	return nil
}

// compareCounts counts every table's rows on both sides; any difference fails the copy.
func (c *copier) compareCounts(ctx context.Context) ([]TableCount, error) {
	counts := make([]TableCount, 0, len(c.tables))
	var differ []string
	for _, t := range c.tables {
		var from, to int64
		if err := c.src.QueryRowContext(ctx, `SELECT count(*) FROM `+quoteIdent(t.name)).Scan(&from); err != nil {
			return nil, err
		}
		if err := c.dst.QueryRow(ctx, `SELECT count(*) FROM `+quoteIdent(t.name)).Scan(&to); err != nil {
			return nil, err
		}
		if from != to {
			differ = append(differ, fmt.Sprintf("%s: %d in SQLite, %d in PostgreSQL", t.name, from, to))
		}
		counts = append(counts, TableCount{Table: t.name, Rows: to})
	}
	if len(differ) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrCountMismatch, strings.Join(differ, "; "))
	}
	return counts, nil
}

// rowSource feeds COPY from the source's rows, each value in the form the target column takes.
type rowSource struct {
	rows   *sql.Rows
	types  []string // the target columns' type names
	values []any
	err    error
}

func (r *rowSource) Next() bool {
	if !r.rows.Next() {
		return false
	}
	ptrs := make([]any, len(r.values))
	for i := range r.values {
		ptrs[i] = &r.values[i]
	}
	if r.err = r.rows.Scan(ptrs...); r.err != nil {
		return false
	}
	return true
}

func (r *rowSource) Values() ([]any, error) {
	for i, v := range r.values {
		r.values[i] = toPostgres(v, r.types[i])
	}
	return r.values, nil
}

func (r *rowSource) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.rows.Err()
}

// toPostgres turns a value as SQLite stores it into one the PostgreSQL column of type typ takes:
// SQLite does not hold a column to its declared type, and may keep text in a BLOB column or bytes in
// a TEXT one.
func toPostgres(v any, typ string) any {
	if b, ok := v.([]byte); ok && b == nil {
		v = []byte{} // an empty BLOB, which pgx would write as NULL
	}
	switch typ {
	case "bytea":
		if s, ok := v.(string); ok {
			return []byte(s)
		}
	case "text", "varchar", "bpchar": // as the store binds text (postgresText)
		switch t := v.(type) {
		case []byte:
			return postgresText(string(t))
		case string:
			return postgresText(t)
		}
	}
	return v
}

// quoteIdent quotes a table or column name for either engine.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
