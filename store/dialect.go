package store

import "database/sql"

// The store speaks to two engines: SQLite (embedded, the default) and PostgreSQL (shared by several
// processes). Its statements are written once, with ? placeholders, in the SQL both engines accept;
// the few phrases they spell differently are the dialect's fields, spliced into the statements that
// need them. PostgreSQL's connections turn ? into $n (see postgres.go).

// dialect is what differs between the engines.
type dialect struct {
	name string // "sqlite" or "postgres": also the folder of its migrations

	// shared: several processes may use the database at once, so claims of background work lock the
	// rows they take and singleton jobs take a lock of the database.
	shared bool

	// idsIn is a sub-select of the integers of a JSON array given as one parameter.
	idsIn string
	// skipLocked ends a sub-select of rows to claim: rows another transaction holds are skipped.
	skipLocked string
	// forUpdate ends a select of rows the transaction will change: they stay locked until it ends.
	forUpdate string

	// jsonText and jsonInt are the SQL of the member key of the JSON object held as text in column, as
	// text or as an integer (NULL when it has none).
	jsonText, jsonInt func(column, key string) string
	// insertOrder orders a table's rows by when they were (last) written, where the table has no id.
	insertOrder string
	// joinedText is the aggregate of the text values of column joined by commas, in no given order.
	joinedText func(column string) string
}

var (
	sqliteDialect = dialect{
		name:        "sqlite",
		idsIn:       `SELECT value FROM json_each(?)`,
		jsonText:    sqliteJSONMember,
		jsonInt:     sqliteJSONMember,
		insertOrder: `rowid`,
		joinedText:  func(column string) string { return `group_concat(` + column + `, ',')` },
	}
	postgresDialect = dialect{
		name:       "postgres",
		shared:     true,
		idsIn:      `SELECT value::bigint FROM json_array_elements_text(?::json)`,
		skipLocked: ` FOR UPDATE SKIP LOCKED`,
		forUpdate:  ` FOR UPDATE`,
		jsonText:   func(column, key string) string { return `(` + column + `::json ->> '` + key + `')` },
		jsonInt:    func(column, key string) string { return `(` + column + `::json ->> '` + key + `')::bigint` },
		// The transaction that wrote the row: a later one has a larger id (the 32-bit counter wraps
		// only after billions of transactions; this only breaks ties within one timestamp).
		insertOrder: `xmin::text::bigint`,
		joinedText:  func(column string) string { return `string_agg(` + column + `, ',')` },
	}
)

// sqliteJSONMember is json_extract, whose result has the member's own type.
func sqliteJSONMember(column, key string) string {
	return `json_extract(` + column + `, '$.` + key + `')`
}

// Engine names the database engine the store runs on: "sqlite" or "postgres".
func (s *Store) Engine() string { return s.d.name }

// Shared reports whether other processes may use the same database (PostgreSQL): state that lives in
// one process's memory, such as counters of requests, must then live in the database.
func (s *Store) Shared() bool { return s.d.shared }

// oneSnapshot begins a read-only transaction whose statements all read the same state of the
// database: SQLite's read transactions always do; PostgreSQL's do at repeatable read (at its default,
// read committed, each statement sees what was committed before it began).
var oneSnapshot = &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
