// Command einvoice is an on-premise electronic invoicing integration server: one binary with an
// embedded SQLite database that issues, validates, signs, delivers and receives UBL 2.1 documents
// (CIUS-PT, PEPPOL BIS 3 orders) for the entities of its installation.
//
// main is the composition root; the commands live in server/cli.
package main

import (
	_ "embed"
	"os"

	"einvoice/server/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

//go:embed config.example.toml
var exampleConfig string

func main() {
	cli.Version = version
	cli.ExampleConfig = exampleConfig
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
