package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"einvoice/server"
	"einvoice/signing"
	"einvoice/store"
	"einvoice/ubl"
	"einvoice/ubl/pdf"
)

// Support tools: render a document's visual PDF, sign a file with a seal, verify the signatures a file
// carries. They work on files and need no running server.

// maxToolInput bounds the files the tools read.
const maxToolInput = 64 << 20

// parseInterspersed parses flags that may come before or after the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// renderCmd is `einvoice render [--lang pt|en] [-o OUT.pdf] FILE.xml`.
func renderCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lang := fs.String("lang", "pt", "language of the labels: pt or en")
	out := fs.String("o", "", "output PDF (default: the input with .pdf)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 1 || *lang != "pt" && *lang != "en" {
		fmt.Fprintln(stderr, "usage: einvoice render [--lang pt|en] [-o OUT.pdf] FILE.xml")
		return 2
	}
	data, err := readBounded(files[0], maxToolInput)
	if err != nil {
		fmt.Fprintln(stderr, "einvoice render:", err)
		return 1
	}
	doc, err := ubl.ReadBytes(data)
	if err != nil {
		fmt.Fprintln(stderr, "einvoice render:", files[0], err)
		return 1
	}
	rendered, err := pdf.Render(doc, pdf.Options{Lang: *lang})
	if err != nil {
		fmt.Fprintln(stderr, "einvoice render:", err)
		return 1
	}
	target := cmp.Or(*out, strings.TrimSuffix(files[0], filepath.Ext(files[0]))+".pdf")
	if err := os.WriteFile(target, rendered, 0o644); err != nil {
		fmt.Fprintln(stderr, "einvoice render:", err)
		return 1
	}
	fmt.Fprintln(stdout, target)
	return 0
}

// signCmd is `einvoice sign (--nif NIF [--data DIR] [--config F] | --p12 F [--password-file F |
// --password-env V]) [-o OUT] FILE`: XAdES-BES for an XML, PAdES for a PDF.
func signCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nif := fs.String("nif", "", "sign with the seal this entity has in the installation")
	configPath := fs.String("config", "", "configuration file (with --nif)")
	dataDir := fs.String("data", "", "data folder (with --nif)")
	p12 := fs.String("p12", "", "sign with this PKCS#12 file instead")
	passwordFile := fs.String("password-file", "", "file whose first line is the PKCS#12 password")
	passwordEnv := fs.String("password-env", "", "environment variable holding the PKCS#12 password")
	out := fs.String("o", "", "output file (default: the input name with -signed)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 1 || (*nif == "") == (*p12 == "") {
		fmt.Fprintln(stderr, "usage: einvoice sign (--nif NIF [--data DIR] | --p12 F.p12 [--password-file F | --password-env VAR]) [-o OUT] FILE")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "einvoice sign:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	data, err := readBounded(files[0], maxToolInput)
	if err != nil {
		return fail(err)
	}
	var seal *signing.Seal
	if *p12 != "" {
		seal, err = sealFromFile(*p12, *passwordFile, *passwordEnv)
	} else {
		seal, err = sealOfEntity(*configPath, *dataDir, *nif)
	}
	if err != nil {
		return fail(err)
	}
	now := time.Now()
	if err := seal.ValidAt(now); err != nil {
		return fail(err)
	}
	var signed []byte
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		signed, err = signing.SignPDF(data, seal, now, signing.PDFOptions{})
	} else {
		signed, err = signing.SignXML(data, seal, now, signing.XMLOptions{})
	}
	if err != nil {
		return fail(err)
	}
	ext := filepath.Ext(files[0])
	target := cmp.Or(*out, strings.TrimSuffix(files[0], ext)+"-signed"+ext)
	if err := os.WriteFile(target, signed, 0o644); err != nil {
		return fail(err)
	}
	fmt.Fprintln(stdout, target)
	return 0
}

func sealFromFile(path, passwordFile, passwordEnv string) (*signing.Seal, error) {
	data, err := readBounded(path, server.MaxSealFile)
	if err != nil {
		return nil, err
	}
	password, err := sealPassword(passwordFile, passwordEnv)
	if err != nil {
		return nil, err
	}
	return signing.LoadPKCS12(data, password)
}

// sealOfEntity reads an entity's seal from the installation's store.
func sealOfEntity(configPath, dataDir, rawNIF string) (*signing.Seal, error) {
	country, nif, err := parseTaxID("nif", rawNIF, "PT")
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	_, st, err := openInstallation(ctx, configPath, dataDir, true)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	e, err := st.EntityByNIF(ctx, country, nif)
	if err != nil {
		return nil, fmt.Errorf("entity %s%s: %w", country, nif, err)
	}
	rec, err := st.SealOf(ctx, e.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("the entity %s%s has no seal (einvoice admin seal import)", country, nif)
	}
	if err != nil {
		return nil, err
	}
	return signing.ParseSeal(rec.Key, rec.Chain)
}

// verifyCmd is `einvoice verify [--json] FILE...`: every signature of each XML or PDF is checked. Exit 0
// when every file carries signatures that all verify, 1 when one is unsigned or invalid, 2 for usage.
func verifyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "one JSON line per file")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "usage: einvoice verify [--json] FILE...")
		return 2
	}
	code := 0
	for _, f := range files {
		v := verifyFile(f)
		if !v.Valid {
			code = 1
		}
		if *asJSON {
			json.NewEncoder(stdout).Encode(v)
			continue
		}
		if !v.Valid {
			fmt.Fprintf(stdout, "%s: NOT VALID: %s\n", f, v.Error)
			continue
		}
		fmt.Fprintf(stdout, "%s: valid, %d signature(s)\n", f, len(v.Signatures))
		for _, s := range v.Signatures {
			fmt.Fprintf(stdout, "  %s by %s (issuer %s, serial %s), covering %s\n", s.Kind, s.Signer, s.Issuer, s.Serial, s.Covered)
		}
	}
	return code
}

// verification is the outcome for one file.
type verification struct {
	File       string                  `json:"file"`
	Valid      bool                    `json:"valid"`
	Signatures []signing.SignatureInfo `json:"signatures"`
	Error      string                  `json:"error,omitempty"`
}

func verifyFile(path string) verification {
	v := verification{File: path, Signatures: []signing.SignatureInfo{}}
	data, err := readBounded(path, maxToolInput)
	if err == nil {
		var infos []signing.SignatureInfo
		if bytes.HasPrefix(data, []byte("%PDF-")) {
			infos, err = signing.VerifyPDF(data)
		} else {
			infos, err = signing.VerifyXML(data)
		}
		if infos != nil {
			v.Signatures = infos
		}
	}
	if err != nil {
		v.Error = err.Error()
		return v
	}
	v.Valid = true
	return v
}
