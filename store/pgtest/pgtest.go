// Package pgtest gives tests a fresh PostgreSQL database of their own on the server named by
// EINVOICE_TEST_POSTGRES (a postgres:// address of a user allowed to create databases; .ci/postgres
// starts one). Without it the tests run on SQLite only.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
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
	server := Server()
	if server == "" {
		tb.Fatalf("%s is not set: no PostgreSQL server for this test", EnvServer)
	}
	u, err := url.Parse(server)
	if err != nil {
		tb.Fatalf("%s: %v", EnvServer, err)
	}
	var b [8]byte
	rand.Read(b[:])
	name := "einvoice_test_" + hex.EncodeToString(b[:])
	admin := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, server)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := admin("CREATE DATABASE " + name); err != nil {
		tb.Fatalf("create the test database: %v", err)
	}
	tb.Cleanup(func() {
		if err := admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			tb.Logf("drop the test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}
