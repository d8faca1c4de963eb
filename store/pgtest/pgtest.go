// Package pgtest gives tests a fresh PostgreSQL database of their own on the server named by
// EINVOICE_TEST_POSTGRES (a postgres:// address of a user allowed to create databases; .ci/postgres
// starts one). Without it the tests run on SQLite only.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvServer names the variable that holds the test server's address.
const EnvServer = "EINVOICE_TEST_POSTGRES"

// Server is the test server's address, or "" when the tests run on SQLite only.
func Server() string { return os.Getenv(EnvServer) }

// NewDatabase creates an empty database on the test server, dropped when the test ends, and returns
// its address. It fails the test when no server is configured or the server refuses.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	return newDatabase(tb, "")
}

// NewPreparedDatabase is NewDatabase with the database copied from a template that prepare filled
// once per test process (the store's migrations, say): a test then skips that work.
func NewPreparedDatabase(tb testing.TB, prepare func(dsn string) error) string {
	tb.Helper()
	templateMu.Lock()
	defer templateMu.Unlock()
	if template == "" {
		name := fmt.Sprintf("einvoice_template_%d_%s", time.Now().Unix(), randomHex())
		dropOldTemplates()
		if err := admin("CREATE DATABASE " + name); err != nil {
			tb.Fatalf("create the template database: %v", err)
		}
		if err := prepare(address(tb, name)); err != nil {
			admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			tb.Fatalf("prepare the template database: %v", err)
		}
		template = name
	}
	return newDatabase(tb, template)
}

// The template of this process; templates are dropped by a later process once they are an hour old.
var (
	templateMu sync.Mutex
	template   string
)

func dropOldTemplates() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, Server())
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'einvoice\_template\_%'`)
	if err != nil {
		return
	}
	names, _ := pgx.CollectRows(rows, pgx.RowTo[string])
	for _, n := range names {
		var made int64
		if _, err := fmt.Sscanf(strings.TrimPrefix(n, "einvoice_template_"), "%d_", &made); err == nil && time.Since(time.Unix(made, 0)) > time.Hour {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{n}.Sanitize()+" WITH (FORCE)")
		}
	}
}

func newDatabase(tb testing.TB, template string) string {
	tb.Helper()
	if Server() == "" {
		tb.Fatalf("%s is not set: no PostgreSQL server for this test", EnvServer)
	}
	name := "einvoice_test_" + randomHex()
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if err := admin(create); err != nil {
		tb.Fatalf("create the test database: %v", err)
	}
	tb.Cleanup(func() {
		if err := admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			tb.Logf("drop the test database %s: %v", name, err)
		}
	})
	return address(tb, name)
}

// address is the test server's address with the database replaced.
func address(tb testing.TB, database string) string {
	u, err := url.Parse(Server())
	if err != nil {
		tb.Fatalf("%s: %v", EnvServer, err)
	}
	u.Path = "/" + database
	return u.String()
}

// admin runs one statement on the test server's own database.
func admin(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, Server())
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
