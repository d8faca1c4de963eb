package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"einvoice/store/pgtest"
)

// openPostgresTarget opens a fresh, migrated PostgreSQL store, or skips the test without a server.
func openPostgresTarget(t *testing.T) *Store {
	t.Helper()
	if pgtest.Server() == "" {
		t.Skipf("%s is not set: copying into PostgreSQL needs a PostgreSQL server", pgtest.EnvServer)
	}
	dst, err := OpenPostgres(context.Background(), pgtest.NewDatabase(t), key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dst.Close() })
	return dst
}

// openSQLiteSource opens a new SQLite store, whichever engine the other tests run on.
func openSQLiteSource(t *testing.T) *Store {
	t.Helper()
	src, err := Open(context.Background(), t.TempDir(), key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func TestCopyToPostgres(t *testing.T) {
	dst := openPostgresTarget(t)
	ctx := context.Background()
	src := openSQLiteSource(t)
	a, err := src.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000", PaysReceived: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := src.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "508025338"})
	client, secret, err := src.CreateClient(ctx, "erp", []string{"documents"})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Authorize(ctx, client.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	token, _, err := src.IssueAccessToken(ctx, client.ID, []string{"documents"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	platform, _, err := src.CreatePlatformToken(ctx, "legacy", []string{"documents"})
	if err != nil {
		t.Fatal(err)
	}
	// An empty BLOB stays empty, not NULL; a NULL stays NULL.
	if _, err := src.writer.ExecContext(ctx, `UPDATE credentials SET token_hash = x'' WHERE id = ?`, platform.ID); err != nil {
		t.Fatal(err)
	}

	// Text SQLite kept as sent (a NUL, invalid UTF-8) arrives as the store would bind it on PostgreSQL.
	if _, err := src.writer.ExecContext(ctx, `UPDATE entities SET name = ? WHERE id = ?`, "A\x00\xff", a.ID); err != nil {
		t.Fatal(err)
	}

	counts, err := src.CopyToPostgres(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := dst.EntityByID(ctx, a.ID); err != nil || got.Name != "A\uFFFD\uFFFD" {
		t.Fatalf("text PostgreSQL cannot hold: %q %v", got.Name, err)
	}
	rows := map[string]int64{}
	for _, c := range counts {
		rows[c.Table] = c.Rows
	}
	if rows["entities"] != 2 || rows["credentials"] != 2 || rows["authorizations"] != 1 || rows["access_tokens"] != 1 {
		t.Fatalf("counts: %v", counts)
	}
	// Every table after the ones it references.
	position := map[string]int{}
	for i, c := range counts {
		position[c.Table] = i
	}
	if position["authorizations"] < position["credentials"] || position["authorizations"] < position["entities"] ||
		position["document_files"] < position["documents"] {
		t.Fatalf("order: %v", counts)
	}

	// Ids, encrypted secrets and hashed tokens arrive unchanged.
	if got, err := dst.EntityByNIF(ctx, "PT", "508025338"); err != nil || got.ID != b.ID || got.PublicKey != b.PublicKey {
		t.Fatalf("entity: %+v %v", got, err)
	}
	if got, err := dst.EntityByID(ctx, a.ID); err != nil || !got.PaysReceived {
		t.Fatalf("entity flags: %+v %v", got, err)
	}
	if _, got, err := dst.ClientSecret(ctx, client.ClientID); err != nil || !bytes.Equal(got, []byte(secret)) {
		t.Fatalf("client secret: %q %v", got, err)
	}
	if at, err := dst.LookupAccessToken(ctx, token); err != nil || at.CredentialID != client.ID {
		t.Fatalf("access token: %+v %v", at, err)
	}
	if ok, _, err := dst.Authorization(ctx, client.ID, b.ID); err != nil || !ok {
		t.Fatalf("authorization: %v %v", ok, err)
	}
	var emptyHash, nullSecret bool
	if err := dst.reader.QueryRowContext(ctx, `SELECT token_hash = ''::bytea, secret_enc IS NULL FROM credentials WHERE id = ?`,
		platform.ID).Scan(&emptyHash, &nullSecret); err != nil || !emptyHash || !nullSecret {
		t.Fatalf("empty and NULL blobs: %v %v %v", emptyHash, nullSecret, err)
	}
	// The copied tables are analysed, so the planner knows their sizes.
	var analysed float64
	if err := dst.reader.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE relname = 'entities'`).Scan(&analysed); err != nil || analysed != 2 {
		t.Fatalf("entities' statistics: %v rows %v", analysed, err)
	}
	// A new row gets an id after the copied ones.
	c, err := dst.CreateEntity(ctx, NewEntity{Name: "C", Country: "PT", NIF: "503504564"})
	if err != nil || c.ID <= b.ID {
		t.Fatalf("new entity: %+v %v", c, err)
	}

	// A second copy into the same database is refused and leaves it as it is.
	if _, err := src.CopyToPostgres(ctx, dst); !errors.Is(err, ErrTargetNotEmpty) {
		t.Fatalf("second copy: %v", err)
	}
	if all, err := dst.Entities(ctx); err != nil || len(all) != 3 {
		t.Fatalf("after the refused copy: %d %v", len(all), err)
	}
}

func TestCopyToPostgresRefusesOtherMigrations(t *testing.T) {
	dst := openPostgresTarget(t)
	ctx := context.Background()
	src := openSQLiteSource(t)
	if _, err := dst.writer.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ('9999_later', '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := src.CopyToPostgres(ctx, dst); !errors.Is(err, ErrVersionsDiffer) {
		t.Fatalf("copy: %v", err)
	}
	if _, err := dst.CopyToPostgres(ctx, src); err == nil {
		t.Fatal("a copy from PostgreSQL into SQLite was accepted")
	}
}

func TestToPostgres(t *testing.T) {
	for _, c := range []struct {
		v    any
		typ  string
		want any
	}{
		{[]byte(nil), "bytea", []byte{}},
		{"abc", "bytea", []byte("abc")},
		{[]byte("abc"), "text", "abc"},
		{[]byte(nil), "text", ""},
		{int64(7), "int8", int64(7)},
		{nil, "bytea", nil},
	} {
		if got := toPostgres(c.v, c.typ); fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", c.want, c.want) {
			t.Errorf("toPostgres(%#v, %s) = %#v, want %#v", c.v, c.typ, got, c.want)
		}
	}
}
