package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"

	"einvoice/store"
)

// migrateStore copies the installation's SQLite database into an empty PostgreSQL database, then says
// how to configure the processes that will run on it.
func migrateStore(fs *flag.FlagSet) func(*adminEnv) error {
	to := fs.String("to", "", "the engine to copy to: postgres")
	dsn := fs.String("dsn", "", "the PostgreSQL database's address (default: storage.dsn or "+envDatabaseURL+")")
	return func(a *adminEnv) error {
		if *to != "postgres" {
			return usagef("--to must be postgres")
		}
		if *dsn == "" {
			*dsn = a.cfg.Storage.DSN
		}
		if *dsn == "" {
			return usagef("--dsn is required (or %s)", envDatabaseURL)
		}
		if a.st.Engine() != "sqlite" {
			return usagef("this installation already runs on PostgreSQL (storage.driver = %q): migrate-store copies the SQLite database of a data folder",
				a.cfg.Storage.Driver)
		}
		key, err := a.cfg.secretKey(newLogger(a.cfg.Log, os.Stderr))
		if err != nil {
			return err
		}
		dst, err := store.OpenPostgres(a.ctx, *dsn, key)
		if err != nil {
			return fmt.Errorf("cannot use the PostgreSQL database %s: %w", redactedDSN(*dsn), err)
		}
		defer dst.Close()
		counts, err := a.st.CopyToPostgres(a.ctx, dst)
		if err != nil {
			if errors.Is(err, store.ErrTargetNotEmpty) || errors.Is(err, store.ErrVersionsDiffer) {
				return fmt.Errorf("nothing copied: %w", err)
			}
			return fmt.Errorf("nothing copied (the PostgreSQL database is left as it was): %w", err)
		}
		keyFrom := "security.secret_key (or " + envSecretKey + ") exactly as this installation has it"
		if a.cfg.Security.SecretKey == "" {
			path, _ := filepath.Abs(filepath.Join(a.cfg.Storage.DataDir, secretKeyFile))
			keyFrom = "the key kept in " + path + " (generated for this installation), as security.secret_key or " + envSecretKey
		}
		report := migrateReport{Tables: counts, Driver: "postgres", DSN: redactedDSN(*dsn), SecretKey: keyFrom}
		return a.print(report, func(w io.Writer) {
			fmt.Fprintln(w, "TABLE\tROWS")
			for _, c := range counts {
				fmt.Fprintf(w, "%s\t%d\n", c.Table, c.Rows)
			}
			fmt.Fprintf(w, "\nCopied %d tables; every count matches. To run on PostgreSQL, configure every process with:\n\n", len(counts))
			fmt.Fprintf(w, "  [storage]\n  driver = \"postgres\"\n  dsn = %q   # or %s\n\n", report.DSN, envDatabaseURL)
			fmt.Fprintf(w, "and the same secret key on every process: %s.\n", keyFrom)
			fmt.Fprintf(w, "Without it, stored secrets cannot be decrypted, and every public id and link changes.\n")
		})
	}
}

// migrateReport is what migrate-store prints with --json.
type migrateReport struct {
	Tables    []store.TableCount `json:"tables"`
	Driver    string             `json:"driver"`
	DSN       string             `json:"dsn"`
	SecretKey string             `json:"secret_key"`
}

// redactedDSN is the address (a URL or key=value pairs) with its password hidden, fit to print.
func redactedDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		// pgx also takes the password as a parameter of the query.
		q := u.Query()
		for _, key := range []string{"password", "sslpassword"} {
			if q.Has(key) {
				q.Set(key, "xxxxx")
				u.RawQuery = q.Encode()
			}
		}
		return u.Redacted()
	}
	return passwordPair.ReplaceAllString(dsn, "${1}xxxxx")
}

// passwordPair is the password of a key=value address, quoted or not.
var passwordPair = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
