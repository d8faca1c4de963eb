package xsd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"einvoice/ubl/ubltest"
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
	profiles, err := ubltest.Profiles()
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
	dir, err := ubltest.SchemaDir()
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
	profiles, err := ubltest.Profiles()
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

// Character content written in the forms XML allows (CDATA sections, comments, processing instructions,
// character references) gets xmllint's verdict: a CDATA section, even an empty or blank one, where the
// content is elements only is an error to libxml2, while one in a value is the value's text.
func TestCharacterContentFormsAsXmllint(t *testing.T) {
	ubltest.Need(t, "xmllint")
	schemas, err := ubltest.SchemaDir()
	if err != nil {
		t.Skip(err)
	}
	doc := schemaValidInvoice(t)
	const (
		party = "<cac:AccountingSupplierParty>"
		date  = "<cbc:IssueDate>"
		root  = "</Invoice>"
	)
	forms := map[string][2]string{
		"cdata-in-elements":       {party, party + "<![CDATA[ ]]>"},
		"empty-cdata-in-elements": {party, party + "<![CDATA[]]>"},
		"cdata-lines-in-elements": {party, party + "\n<![CDATA[\n]]>\n"},
		"cdata-in-root":           {root, "<![CDATA[ ]]>" + root},
		"blank-reference":         {party, party + "&#32;"},
		"comment-and-pi":          {party, party + "<!--c--><?pi x?>"},
		"cdata-value":             {date, date + "<![CDATA[]]>"},
		"comment-in-value":        {date, date + "<!--c-->"},
		"pi-in-value":             {date, date + "<?pi?>"},
		"spaced-cdata-value":      {date, date + "<![CDATA[ ]]>"},
	}
	dir := t.TempDir()
	var files []string
	for name, edit := range forms {
		if !bytes.Contains(doc, []byte(edit[0])) {
			t.Fatalf("%s: the invoice has no %s", name, edit[0])
		}
		f := filepath.Join(dir, name+".xml")
		if err := os.WriteFile(f, bytes.Replace(doc, []byte(edit[0]), []byte(edit[1]), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	official := ubltest.SchemaValid(t, filepath.Join(schemas, "maindoc", "UBL-Invoice-2.1.xsd"), files)
	seen := map[bool]int{}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		got, errs, perr := valid(data)
		seen[official[f]]++
		if got != official[f] {
			t.Errorf("%s: ours %v, xmllint %v (parse %v, errors %v)", filepath.Base(f), got, official[f], perr, errs)
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("the forms should include valid and invalid ones: %v", seen)
	}
}

// schemaValidInvoice is a corpus invoice the official schema accepts, written with the usual prefixes.
func schemaValidInvoice(t *testing.T) []byte {
	t.Helper()
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	for _, p := range profiles {
		for _, e := range p.Expected {
			if e.XSDValid && e.Root != nil && *e.Root == "Invoice" {
				data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(data, []byte("</Invoice>")) && bytes.Contains(data, []byte("<cac:AccountingSupplierParty>")) {
					return data
				}
			}
		}
	}
	t.Fatal("no schema-valid invoice in the corpus")
	return nil
}
