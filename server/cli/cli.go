// Package cli is einvoice's command line: it reads the arguments and the configuration, opens the
// store, and hands them to the server, the admin commands, the validator or the support tools.
package cli

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"einvoice/server"
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
	cfg, err := loadConfig(*configPath)
	if err != nil {
		fmt.Fprintln(stderr, "einvoice:", err)
		return 2
	}
	if *dataDir != "" {
		cfg.Storage.DataDir = *dataDir
	}
	if *listen != "" {
		cfg.Server.Listen = *listen
	}
	if *demo {
		cfg.Environment.Mode = "test"
	}
	log := newLogger(cfg.Log, os.Stderr)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		log.Error("opening the store", "err", err)
		return 1
	}
	defer st.Close()

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
		"data", cfg.Storage.DataDir)
	if err := server.New(cfg.serverConfig(), st, log).Run(ctx, ln); err != nil {
		log.Error("serving", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// openStore creates the data folder if needed and opens the database in it.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (*store.Store, error) {
	if err := os.MkdirAll(cfg.Storage.DataDir, 0o700); err != nil {
		return nil, err
	}
	key, err := cfg.secretKey(log)
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, cfg.Storage.DataDir, key)
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
  server:          %s/   (API only: the web portal is not built yet)
  API:             %s
  client_id:       %s
  client_secret:   %s
  platform token:  %s
`, base, c.APIBase, c.ClientID, c.ClientSecret, c.PlatformToken)
	for _, e := range c.Entities {
		fmt.Fprintf(w, "  entity:          %s  NIF %s%s  public key %s\n", e.Name, e.Country, e.NIF, e.PublicKey)
	}
	fmt.Fprintf(w, "  written to       %s/%s\n", dataDir, server.DemoCredentialsFile)
	if mailOutbox != "" {
		fmt.Fprintf(w, "  e-mail outbox:   %s  (einvoice admin emails outbox)\n", mailOutbox)
	}
	fmt.Fprintln(w)
}
