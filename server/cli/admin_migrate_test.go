package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"einvoice/store"
	"einvoice/store/pgtest"
)

// A demo installation with documents, webhooks, users, sessions and audit entries moves to PostgreSQL
// whole: every row of every table equal, ids unchanged, secrets still decrypted with the same key,
// tokens and sessions still valid, new rows numbered after the copied ones.
func TestAdminMigrateStore(t *testing.T) {
	if pgtest.Server() == "" {
		t.Skipf("%s is not set: migrate-store needs a PostgreSQL server", pgtest.EnvServer)
	}
	ctx := context.Background()
	data := t.TempDir()
	p, creds := startDemo(t, data)
	a, b := creds.Entities[0], creds.Entities[1]
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data)...)
	}
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("a long enough password 123\n"), 0o600)
	for _, args := range [][]string{
		{"webhook", "create", "--nif", b.NIF, "--url", "http://127.0.0.1:46301/hook", "--key", "migrate test key 0123456789", "--events", "document.received"},
		{"user", "create", "--username", "ana", "--entity", b.NIF, "--role", "operator", "--password-file", pw},
		{"rule", "add", "--nif", a.NIF, "--rule", "order_reference"},
	} {
		if code, _, errOut := admin(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	c := client{t, creds.APIBase}
	token := c.token(creds, "migrate")
	for i := range 3 {
		body := dataInvoice(fmt.Sprintf("FT M/%d", i), b.NIF)
		if status, v := c.call("POST", "/apps/documents", map[string]string{"Authorization": "Bearer " + token, "entity": a.PublicKey,
			"Content-Type": "application/json"}, body); status != 201 {
			t.Fatalf("create %d: %d %v", i, status, v)
		}
	}
	p.stop(t)

	key, err := os.ReadFile(filepath.Join(data, secretKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	key = bytes.TrimSpace(key)
	src, err := store.Open(ctx, data, key)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	user, _, err := src.UserByUsername(ctx, "ana")
	if err != nil {
		t.Fatal(err)
	}
	sessionHash := bytes.Repeat([]byte{7}, 32)
	if _, err := src.CreateSession(ctx, sessionHash, user.ID, time.Now().Add(time.Hour), "test", "127.0.0.1"); err != nil {
		t.Fatal(err)
	}

	dsn := pgtest.NewDatabase(t)
	code, out, errOut := admin("migrate-store", "--to", "postgres", "--dsn", dsn, "--json")
	if code != 0 {
		t.Fatalf("migrate-store: exit %d: %s", code, errOut)
	}
	var report migrateReport
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if report.Driver != "postgres" || !strings.Contains(report.SecretKey, filepath.Join(data, secretKeyFile)) {
		t.Fatalf("report: %+v", report)
	}

	// Every table, row for row.
	lite, err := sql.Open("sqlite", filepath.Join(data, store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	reported := map[string]int64{}
	for _, c := range report.Tables {
		reported[c.Table] = c.Rows
	}
	tables := queryColumn(t, lite, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name <> 'schema_migrations'`)
	if len(reported) != len(tables) {
		t.Fatalf("%d tables reported, SQLite has %d", len(reported), len(tables))
	}
	for _, table := range tables {
		want := tableRows(t, lite, table)
		got := tableRows(t, pg, table)
		if !slices.Equal(want, got) {
			t.Errorf("%s differs:\nSQLite     %q\nPostgreSQL %q", table, want, got)
		}
		if reported[table] != int64(len(want)) {
			t.Errorf("%s: %d rows reported, %d in SQLite", table, reported[table], len(want))
		}
	}
	for _, table := range []string{"entities", "credentials", "documents", "document_files", "document_history", "webhooks", "users",
		"sessions", "audit_log", "entity_counts", "outbox", "recipient_rules"} {
		if reported[table] == 0 {
			t.Errorf("the installation has no %s: the test copies too little", table)
		}
	}

	dst, err := store.OpenPostgres(ctx, dsn, key)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, secret, err := dst.ClientSecret(ctx, creds.ClientID); err != nil || string(secret) != creds.ClientSecret {
		t.Fatalf("client secret on PostgreSQL: %v", err)
	}
	if _, err := dst.LookupAccessToken(ctx, token); err != nil {
		t.Fatalf("access token on PostgreSQL: %v", err)
	}
	if s, err := dst.SessionByTokenHash(ctx, sessionHash, time.Now()); err != nil || s.UserID != user.ID {
		t.Fatalf("portal session on PostgreSQL: %+v %v", s, err)
	}
	receiver, err := dst.EntityByPublicKey(ctx, b.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := dst.Webhooks(ctx, receiver.ID)
	if err != nil || len(hooks) != 1 || hooks[0].Key != "migrate test key 0123456789" {
		t.Fatalf("webhook on PostgreSQL: %+v %v", hooks, err)
	}
	var highest int64
	if err := lite.QueryRow(`SELECT max(id) FROM entities`).Scan(&highest); err != nil {
		t.Fatal(err)
	}
	fresh, err := dst.CreateEntity(ctx, store.NewEntity{Name: "C", Country: "PT", NIF: "503504564"})
	if err != nil || fresh.ID <= highest {
		t.Fatalf("a new entity on PostgreSQL: %+v %v", fresh, err)
	}

	// Refused: into a database that holds rows (nothing changes; its address from the environment this
	// time), a database that cannot be reached, a target that is no engine.
	t.Setenv(envDatabaseURL, dsn)
	if code, _, errOut := admin("migrate-store", "--to", "postgres"); code != 1 {
		t.Fatalf("into a filled database: exit %d: %s", code, errOut)
	}
	if n := len(queryColumn(t, pg, `SELECT id FROM entities`)); n != len(creds.Entities)+1 {
		t.Fatalf("the refused copy changed the target: %d entities", n)
	}
	if code, _, errOut := admin("migrate-store", "--to", "postgres", "--dsn", "postgres://nobody@127.0.0.1:46399/none?connect_timeout=5"); code != 1 {
		t.Fatalf("unreachable: exit %d: %s", code, errOut)
	}
	if code, _, _ := admin("migrate-store", "--to", "mysql", "--dsn", dsn); code != 2 {
		t.Fatalf("--to mysql: exit %d", code)
	}
}

func queryColumn(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// tableRows is every row of table, each written out column by column in one form for both engines
// (an integer flag and a boolean alike, text and bytes alike), sorted.
func tableRows(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	columns, _ := rows.Columns()
	var out []string
	for rows.Next() {
		values := make([]any, len(columns))
		ptrs := make([]any, len(columns))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range values {
			switch x := v.(type) {
			case bool:
				v = map[bool]int64{false: 0, true: 1}[x]
			case []byte:
				v = string(x)
			}
			fmt.Fprintf(&b, "%s=%q ", columns[i], fmt.Sprint(v))
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestRedactedDSN(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://einvoice:s3cret@db/einvoice?sslmode=require":                          "postgres://einvoice:xxxxx@db/einvoice?sslmode=require",
		"host=db user=einvoice password=s3cret dbname=einvoice":                           "host=db user=einvoice password=xxxxx dbname=einvoice",
		"host=db password = 'a b\\' c' dbname=einvoice":                                   "host=db password = xxxxx dbname=einvoice",
		"host=db dbname=einvoice":                                                         "host=db dbname=einvoice",
		"postgres://einvoice@db/einvoice?sslmode=require&password=s3cret&sslpassword=k3y": "postgres://einvoice@db/einvoice?password=xxxxx&sslmode=require&sslpassword=xxxxx",
	} {
		if got := redactedDSN(dsn); got != want {
			t.Errorf("redactedDSN(%q) = %q, want %q", dsn, got, want)
		}
	}
}
