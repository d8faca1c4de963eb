package xsd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"einvoice/internal/corpus"
	"einvoice/ubl/xmltree"
	"einvoice/ubl/xsd/gen"
)

// valid is the structure verdict: well-formed and valid against the schema of its root.
func valid(data []byte) (bool, []Error, error) {
	t, err := xmltree.Parse(data, xmltree.DefaultLimits)
	if err != nil {
		return false, nil, err
	}
	errs := Validate(t)
	return len(errs) == 0, errs, nil
}

// Every corpus file gets the official schema's verdict.
func TestAgreesWithOfficialSchemaOnCorpus(t *testing.T) {
	profiles, err := corpus.Profiles()
	if err != nil {
		t.Skip(err)
	}
	for _, p := range profiles {
		agree := 0
		for _, e := range p.Expected {
			data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
			if err != nil {
				t.Fatal(err)
			}
			got, errs, perr := valid(data)
			if got == e.XSDValid {
				agree++
				continue
			}
			t.Errorf("%s/%s: xsd_valid %v, official %v (parse: %v, errors: %v)", p.Name, e.File, got, e.XSDValid, perr, errs)
		}
		t.Logf("%s: %d/%d files agree on xsd_valid", p.Name, agree, len(p.Expected))
	}
}

// The committed table is what the generator makes of the official schemas today.
func TestTableIsUpToDate(t *testing.T) {
	dir, err := corpus.SchemaDir()
	if err != nil {
		t.Skip(err)
	}
	fresh, err := gen.Compile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, []byte(tableText)) {
		t.Fatal("ubl21.tbl is stale: run go generate ./ubl/xsd")
	}
}

// xs:integer is unbounded, as in the official (Java) validator: a 20-octet certificate serial number
// is a valid ds:X509SerialNumber, where libxml2 would stop at 24 digits.
func TestIntegerIsUnbounded(t *testing.T) {
	for value, want := range map[string]bool{
		"1461501637330902918203684832716283019655932542975": true, // 2^160 - 1
		"-12": true, "+0": true, "1.0": false, "1e3": false, "": false,
	} {
		if got := integerLexical(value, bInteger); got != want {
			t.Errorf("%q: %v, want %v", value, got, want)
		}
	}
}

// A remembered verdict gives exactly the errors working it out gives: every corpus file is checked with
// no verdict remembered, then again with every verdict of the corpus remembered.
func TestRememberedVerdictsChangeNothing(t *testing.T) {
	profiles, err := corpus.Profiles()
	if err != nil {
		t.Skip(err)
	}
	var trees []*xmltree.Tree
	for _, p := range profiles {
		for _, e := range p.Expected {
			data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
			if err != nil {
				t.Fatal(err)
			}
			if tree, err := xmltree.Parse(data, xmltree.DefaultLimits); err == nil {
				trees = append(trees, tree)
			}
		}
	}
	cold := make([][]Error, len(trees))
	for i, tree := range trees {
		verdicts.byKey = map[uint64]*matched{}
		cold[i] = Validate(tree)
	}
	for _, tree := range trees {
		Validate(tree)
	}
	if len(verdicts.byKey) == 0 {
		t.Fatal("no verdict remembered")
	}
	for i, tree := range trees {
		if warm := Validate(tree); fmt.Sprint(warm) != fmt.Sprint(cold[i]) {
			t.Fatalf("tree %d: remembered %v, worked out %v", i, warm, cold[i])
		}
	}
}

// xs:language is its pattern, as libxml2's schema validator reads it (each value put to xmllint).
func TestLanguageIsThePattern(t *testing.T) {
	for v, want := range map[string]bool{"G": true, "GG": true, "x-y": true, "i-klingon": true, "Gx-1": true,
		"a-12345678": true, "ab-cd-ef": true, "1": false, "": false, "abcdefghi": false, "a-123456789": false,
		"a--b": false, "a-": false, "-a": false, "ção": false, "a_b": false} {
		if got := validLanguage(v); got != want {
			t.Errorf("%q: %v, xmllint %v", v, got, want)
		}
	}
}
