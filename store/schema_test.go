package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"einvoice/store/pgtest"
)

// TestPostgresSchemaEqualsSQLite: the PostgreSQL migrations make the tables, columns and named indexes
// SQLite's make, column by column with the matching type, nullability and default, so that a
// migration added to one engine's folder only is caught.
func TestPostgresSchemaEqualsSQLite(t *testing.T) {
	if pgtest.Server() == "" {
		t.Skipf("%s is not set: the PostgreSQL schema is not checked", pgtest.EnvServer)
	}
	ctx := context.Background()
	lite, err := Open(ctx, t.TempDir(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := OpenPostgres(ctx, pgtest.NewDatabase(t), key)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()

	liteColumns := rowsOf(t, lite.reader, `SELECT m.name, c.name, upper(c.type), c."notnull" OR c.pk > 0, coalesce(c.dflt_value, '')
		FROM sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type = 'table' AND m.name <> 'schema_migrations'`)
	pgColumns := rowsOf(t, pg.reader, `SELECT table_name, column_name,
			CASE data_type WHEN 'bigint' THEN 'INTEGER' WHEN 'bytea' THEN 'BLOB' ELSE upper(data_type) END,
			is_nullable = 'NO', CASE WHEN is_identity = 'YES' THEN '' ELSE coalesce(replace(column_default, '::text', ''), '') END
		FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_migrations'`)
	if diff := difference(liteColumns, pgColumns); diff != "" {
		t.Errorf("columns (table, column, type, not null, default) differ:\n%s", diff)
	}
	liteIndexes := rowsOf(t, lite.reader, `SELECT tbl_name, name FROM sqlite_master
		WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'`)
	pgIndexes := rowsOf(t, pg.reader, `SELECT i.tablename, i.indexname FROM pg_indexes i
		WHERE i.schemaname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`)
	if diff := difference(liteIndexes, pgIndexes); diff != "" {
		t.Errorf("named indexes differ:\n%s", diff)
	}
	liteTriggers := rowsOf(t, lite.reader, `SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'`)
	pgTriggers := rowsOf(t, pg.reader, `SELECT DISTINCT event_object_table, trigger_name FROM information_schema.triggers`)
	// SQLite's issued counters are triggers of their own; PostgreSQL's documents_count keeps them too.
	liteTriggers = slices.DeleteFunc(liteTriggers, func(r string) bool { return strings.Contains(r, "count_issued") })
	if diff := difference(liteTriggers, pgTriggers); diff != "" {
		t.Errorf("triggers differ:\n%s", diff)
	}
}

// rowsOf is every row of query, its columns joined by " | ", sorted.
func rowsOf(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = strings.ToLower(v.String)
			if parts[i] == "1" || parts[i] == "true" {
				parts[i] = "true"
			} else if parts[i] == "0" || parts[i] == "false" {
				parts[i] = "false"
			}
		}
		out = append(out, strings.Join(parts, " | "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// difference lists the rows only one side has.
func difference(sqlite, postgres []string) string {
	var b strings.Builder
	for _, r := range sqlite {
		if !slices.Contains(postgres, r) {
			b.WriteString("  only on SQLite:     " + r + "\n")
		}
	}
	for _, r := range postgres {
		if !slices.Contains(sqlite, r) {
			b.WriteString("  only on PostgreSQL: " + r + "\n")
		}
	}
	return b.String()
}
