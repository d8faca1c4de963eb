package store

import (
	"context"
	"database/sql"
	"strings"
)

// Sides of an entity's documents, as the portal lists them.
const (
	SideIssued   = "issued"   // the entity issued them
	SideReceived = "received" // delivered to the entity
	SideToSend   = "tosend"   // the entity issued them and they wait for a connection
)

// DocumentFilter selects one side of an entity's documents. Empty fields do not filter.
type DocumentFilter struct {
	EntityID int64
	Side     string
	Number   string // part of the number
	Kind     string // invoice, credit_note, order
	NIF      string // the counterparty's tax ID
	Name     string // part of the counterparty's name
	State    string
	From, To string // emission date bounds (inclusive)
	Sort     string // a key of DocumentSorts, "-" before it for descending
	Offset   int
	Limit    int
}

// DocumentSorts are the orders a list can be sorted by, and their columns.
var DocumentSorts = map[string]string{
	"date":   "emission_date",
	"number": "number",
	"state":  "state",
	"amount": "CAST(payable_amount AS NUMERIC)",
	"name":   "counterparty_name",
}

// Documents lists one side of an entity's documents, newest emission date first unless sorted
// otherwise, and how many match in all.
func (s *Store) Documents(ctx context.Context, f DocumentFilter) ([]Document, int, error) {
	var where []string
	var args []any
	add := func(cond string, v ...any) { where, args = append(where, cond), append(args, v...) }
	party := "customer"
	switch f.Side {
	case SideReceived:
		party = "supplier"
		add("recipient_id = ?", f.EntityID)
		add("state <> 'tosend'")
	case SideToSend:
		add("issuer_id = ?", f.EntityID)
		add("state = 'tosend'")
	default:
		add("issuer_id = ?", f.EntityID)
	}
	if f.Number != "" {
		add("instr(number, ?) > 0", f.Number)
	}
	if f.Kind != "" {
		add("kind = ?", f.Kind)
	}
	if f.NIF != "" {
		add(party+"_nif = ?", f.NIF)
	}
	if f.Name != "" {
		add("instr(lower("+party+"_name), lower(?)) > 0", f.Name)
	}
	if f.State != "" {
		add("state = ?", f.State)
	}
	if f.From != "" {
		add("emission_date >= ?", f.From)
	}
	if f.To != "" {
		add("emission_date <= ?", f.To)
	}
	cond := strings.Join(where, " AND ")
	key, desc := strings.CutPrefix(f.Sort, "-")
	column, ok := DocumentSorts[key]
	if !ok {
		column, desc = "emission_date", true
	}
	column = strings.Replace(column, "counterparty", party, 1)
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	tx, err := s.reader.BeginTx(ctx, oneSnapshot) // the total and the page agree
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	docs, err := s.documentRows(ctx, tx, `SELECT `+documentColumns+` FROM documents WHERE `+cond+
		` ORDER BY `+column+dir+`, id`+dir+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return docs, total, err
}

// documentRows reads the documents a query selects (with documentColumns).
func (s *Store) documentRows(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]Document, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(s.ids, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DocumentCounts are an entity's documents counted by side and state.
type DocumentCounts struct {
	Issued   map[string]int // by state
	Received map[string]int // by state (never tosend)
}

// CountDocuments counts an entity's issued and received documents by state.
func (s *Store) CountDocuments(ctx context.Context, entityID int64) (DocumentCounts, error) {
	c := DocumentCounts{Issued: map[string]int{}, Received: map[string]int{}}
	for _, q := range []struct {
		sql string
		to  map[string]int
	}{
		{`SELECT state, count(*) FROM documents WHERE issuer_id = ? GROUP BY state`, c.Issued},
		{`SELECT state, count(*) FROM documents WHERE recipient_id = ? AND state <> 'tosend' GROUP BY state`, c.Received},
	} {
		rows, err := s.reader.QueryContext(ctx, q.sql, entityID)
		if err != nil {
			return c, err
		}
		for rows.Next() {
			var state string
			var n int
			if err := rows.Scan(&state, &n); err != nil {
				rows.Close()
				return c, err
			}
			q.to[state] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return c, err
		}
	}
	return c, nil
}
