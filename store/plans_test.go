package store

import (
	"context"
	"strings"
	"testing"
)

// The lists' queries of an entity's documents search an index, never scan the whole table: the
// inbox and its filters, the portal's received and issued lists, and the counts by state. The plans
// are SQLite's (PostgreSQL chooses by its statistics, which an empty table does not have).
func TestDocumentQueriesUseAnIndex(t *testing.T) {
	s := openSQLite(t, t.TempDir())
	inbox := `SELECT id FROM documents WHERE recipient_id = ? AND imported_at IS NULL AND state IN ('sent', 'accepted')`
	for _, q := range []string{
		inbox + ` ORDER BY id DESC LIMIT 15`,
		inbox + ` AND number = ? ORDER BY id DESC LIMIT 15`,
		inbox + ` AND supplier_nif = ? ORDER BY id DESC LIMIT 15`,
		inbox + ` AND emission_date >= ? AND emission_date <= ? ORDER BY id DESC LIMIT 15`,
		`SELECT id FROM documents WHERE recipient_id = ? AND state <> 'tosend' ORDER BY emission_date DESC, id DESC LIMIT 15`,
		`SELECT count(*) FROM documents WHERE recipient_id = ? AND state <> 'tosend' AND supplier_nif = ?`,
		`SELECT id FROM documents WHERE issuer_id = ? ORDER BY emission_date DESC, id DESC LIMIT 15`,
		`SELECT id FROM documents WHERE issuer_id = ? AND number = ? AND type_code = ? AND emission_date = ?`,
		`SELECT state, count(*) FROM documents WHERE recipient_id = ? AND state <> 'tosend' GROUP BY state`,
		`SELECT state, count(*) FROM documents WHERE issuer_id = ? GROUP BY state`,
	} {
		rows, err := s.reader.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+q, 1, "x", "y", "z")
		if err != nil {
			t.Fatal(q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if p := strings.Join(plan, "; "); !strings.Contains(p, "SEARCH documents USING") || strings.Contains(p, "SCAN documents") {
			t.Errorf("%s\n  plan: %s", q, p)
		}
	}
}
