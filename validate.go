package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"einvoice/ubl"
)

// validateCmd is `einvoice validate [--profile P] [--json] [--lang pt|en] PATH...`. Folders are walked for
// *.xml. Exit 0 when no file is rejected, 1 when any is, 2 for usage or I/O errors.
func validateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profileName := fs.String("profile", "auto", "auto, cius-pt or peppol-order")
	asJSON := fs.Bool("json", false, "one JSON line per file")
	lang := fs.String("lang", "pt", "language of the messages: pt or en")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	profile, ok := ubl.ParseProfile(*profileName)
	if !ok || (*lang != "pt" && *lang != "en") || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: einvoice validate [--profile auto|cius-pt|peppol-order] [--json] [--lang pt|en] PATH...")
		return 2
	}
	files, err := expand(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "einvoice validate:", err)
		return 2
	}
	code := 0
	enc := json.NewEncoder(stdout)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(stderr, "einvoice validate:", err)
			return 2
		}
		r := ubl.Validate(data, profile, *lang)
		if r.Rejected() {
			code = 1
		}
		if *asJSON {
			enc.Encode(jsonLine{File: f, Result: r})
			continue
		}
		printReport(stdout, f, r)
	}
	return code
}

// jsonLine is the shape of expected/*.jsonl plus the profile, service findings and all findings.
type jsonLine struct {
	File string `json:"file"`
	*ubl.Result
}

// expand turns the arguments into files: a folder stands for its *.xml files, found recursively and
// named as the argument joined with their path inside it.
func expand(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".xml") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func printReport(w io.Writer, file string, r *ubl.Result) {
	verdict := "valid"
	if r.Rejected() {
		verdict = "REJECTED"
	}
	root := "?"
	if r.Root != nil {
		root = *r.Root
	}
	fmt.Fprintf(w, "%s: %s (%s, profile %s, schema %s, %d fatal, %d warnings)\n", file, verdict, root, r.Profile,
		map[bool]string{true: "valid", false: "invalid"}[r.XSDValid], count(r.Fatal), count(r.Warning))
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %-7s %s  %s\n", f.Flag, f.Message, f.Location)
	}
}

func count(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
