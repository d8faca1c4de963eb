// Command gen writes the structure table: go run ./ubl/xsd/gen/cmd -xsd DIR -out FILE.
package main

import (
	"flag"
	"fmt"
	"os"

	"einvoice/ubl/xsd/gen"
)

func main() {
	dir := flag.String("xsd", "../shared/conformance/ubl-2.1/xsdrt", "folder of the official xsdrt schema files")
	out := flag.String("out", "ubl/xsd/ubl21.tbl", "table to write")
	flag.Parse()
	table, err := gen.Compile(*dir)
	if err == nil {
		err = os.WriteFile(*out, table, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
