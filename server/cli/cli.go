// Package cli is einvoice's command line: it reads the arguments and the configuration, opens the
// store, and hands them to the server, the admin commands, the validator or the support tools.
package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"einvoice/server"
	"einvoice/server/portal"
	"einvoice/signing"
	"einvoice/store"
)

// Version is the build's version, set by main (itself set at build time with -ldflags "-X main.version=…").
var Version = "dev"

// ExampleConfig is the documented example configuration, embedded by main from config.example.toml.
var ExampleConfig string

var randRead = rand.Read

const usage = `einvoice: electronic invoicing integration server

Usage:
  einvoice serve [--config FILE] [--data DIR] [--listen ADDR] [--demo]
  einvoice admin <noun> <verb> [--flags] [--json]     (einvoice admin help)
  einvoice validate [--profile auto|cius-pt|peppol-order] [--json] [--lang pt|en] PATH...
  einvoice render [--lang pt|en] [-o OUT.pdf] FILE.xml     the visual PDF of a UBL document
  einvoice sign (--nif NIF [--data DIR] | --p12 F.p12 [--password-file F | --password-env VAR]) [-o OUT] FILE
                                                       XAdES-BES for an XML, PAdES for a PDF
  einvoice verify [--json] FILE...                      checks every signature of XML and PDF files
  einvoice bench [--data DIR] [--documents N] [--clients C] [--sign] [--pid PID]   load client for a running server
  einvoice --new-config                                prints the documented example configuration
  einvoice version
`

// Run executes one command line and returns the process exit code: 0 ok, 1 failure, 2 usage.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "--new-config", "-new-config":
		fmt.Fprint(stdout, ExampleConfig)
		return 0
	case "version", "--version":
		fmt.Fprintln(stdout, "einvoice", Version)
		return 0
	case "serve":
		return serve(args[1:], stderr)
	case "admin":
		return admin(args[1:], stdout, stderr)
	case "validate":
		return validateCmd(args[1:], stdout, stderr)
	case "render":
		return renderCmd(args[1:], stdout, stderr)
	case "sign":
		return signCmd(args[1:], stdout, stderr)
	case "verify":
		return verifyCmd(args[1:], stdout, stderr)
	case "bench":
		return benchCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "einvoice: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// serve runs the service until SIGINT or SIGTERM.
func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "configuration file (default: $EINVOICE_CONFIG, else built-in defaults)")
	dataDir := fs.String("data", "", "data folder (overrides storage.data_dir)")
	listen := fs.String("listen", "", "listen address (overrides server.listen)")
	demo := fs.Bool("demo", false, "run as the two-entity demo/test installation")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, st, err := openInstallation(ctx, *configPath, *dataDir, false)
	var ce configError
	if errors.As(err, &ce) {
		fmt.Fprintln(stderr, "einvoice:", err)
		return 2
	}
	log := newLogger(cfg.Log, os.Stderr)
	if err != nil {
		log.Error("opening the store", "err", err)
		return 1
	}
	defer st.Close()
	if cfg.Storage.Driver != "postgres" {
		unlock, err := lockDataFolder(cfg.Storage.DataDir)
		if err != nil {
			log.Error("locking the data folder", "err", err)
			return 1
		}
		defer unlock()
	}
	if *listen != "" {
		cfg.Server.Listen = *listen
	}
	if *demo {
		cfg.Environment.Mode = "test"
	}

	ln, err := net.Listen("tcp", cfg.Server.Listen)
	if err != nil {
		log.Error("listening", "addr", cfg.Server.Listen, "err", err)
		return 1
	}
	base := baseURL(cfg.Server.PublicURL, ln.Addr())
	cfg.Server.PublicURL = base
	if *demo {
		creds, err := server.EnsureDemo(ctx, st, cfg.Storage.DataDir, base+"/api/v1/pt")
		if err != nil {
			log.Error("setting up the demo installation", "err", err)
			return 1
		}
		outbox := ""
		if cfg.Mail.Transport != "smtp" {
			outbox = cfg.mailConfig().OutboxDir
		}
		printDemo(stderr, base, cfg.Storage.DataDir, outbox, creds)
	}
	log.Info("einvoice serving", "version", Version, "api", base+"/api/v1/pt", "mode", cfg.Environment.Mode,
		"data", cfg.Storage.DataDir, "rsa_signatures", signing.RSASigner())
	srv := server.New(cfg.serverConfig(), st, log)
	if err := portal.Mount(srv, log); err != nil {
		log.Error("building the portal", "err", err)
		return 1
	}
	if err := srv.Run(ctx, ln); err != nil {
		log.Error("serving", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// configError is a configuration that cannot be used; the command exits with 2.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// openInstallation reads the configuration (the file given, else $EINVOICE_CONFIG, else the built-in
// defaults), applies a --data folder, and opens the store in the data folder, creating both when
// needed. A command that works on an existing installation (existing) does not create one in the
// default folder: when neither --data nor a configuration names the folder and it holds no database,
// it says where it looked.
func openInstallation(ctx context.Context, configPath, dataDir string, existing bool) (Config, *store.Store, error) {
	cfg, err := loadConfig(configPath)
	if err != nil {
		return cfg, nil, configError{err}
	}
	if dataDir != "" {
		cfg.Storage.DataDir = dataDir
	}
	named := dataDir != "" || configPath != "" || os.Getenv(envConfig) != ""
	if existing && !named && cfg.Storage.Driver != "postgres" {
		if _, err := os.Stat(filepath.Join(cfg.Storage.DataDir, store.DBFile)); err != nil {
			abs, _ := filepath.Abs(cfg.Storage.DataDir)
			return cfg, nil, usagef("no einvoice database in %s (the default data folder, %q from the current directory): "+
				"give --data DIR or --config FILE, or set %s", abs, cfg.Storage.DataDir, envConfig)
		}
	}
	if err := os.MkdirAll(cfg.Storage.DataDir, 0o700); err != nil {
		return cfg, nil, err
	}
	key, err := cfg.secretKey(newLogger(cfg.Log, os.Stderr))
	if err != nil {
		return cfg, nil, err
	}
	if cfg.Storage.Driver == "postgres" {
		st, err := store.OpenPostgres(ctx, cfg.Storage.DSN, key)
		return cfg, st, err
	}
	st, err := store.Open(ctx, cfg.Storage.DataDir, key)
	return cfg, st, err
}

// baseURL is the configured public URL, or one made from the address actually listened on.
func baseURL(public string, addr net.Addr) string {
	if public != "" {
		return trimSlash(public)
	}
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

func printDemo(w io.Writer, base, dataDir, mailOutbox string, c server.DemoCredentials) {
	fmt.Fprintf(w, `
einvoice demo installation (test mode)
  portal:          %s
  API:             %s
  client_id:       %s
  client_secret:   %s
  platform token:  %s
`, c.Portal.URL, c.APIBase, c.ClientID, c.ClientSecret, c.PlatformToken)
	for _, e := range c.Entities {
		fmt.Fprintf(w, "  entity:          %s  NIF %s%s  public key %s\n", e.Name, e.Country, e.NIF, e.PublicKey)
	}
	for _, u := range c.Portal.Users {
		at := "every entity"
		if u.EntityNIF != nil {
			at = "NIF " + *u.EntityNIF
		}
		fmt.Fprintf(w, "  portal user:     %-11s password %s  (%s, %s)\n", u.Username, u.Password, u.Role, at)
	}
	fmt.Fprintf(w, "  written to       %s/%s\n", dataDir, server.DemoCredentialsFile)
	if mailOutbox != "" {
		fmt.Fprintf(w, "  e-mail outbox:   %s  (einvoice admin emails outbox)\n", mailOutbox)
	}
	fmt.Fprintln(w)
}
