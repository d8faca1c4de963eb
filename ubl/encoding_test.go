package ubl

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"einvoice/ubl/ubltest"
)

// The service accepts UTF-8 without a byte-order mark only: a mark or another encoding is a finding of
// its own, whatever the document declares, and the official verdict is the one on the same content in
// UTF-8.
func TestEncodingFindings(t *testing.T) {
	plain := string(generatedInvoice(2))
	body := plain[strings.Index(plain, "?>")+2:] // without its XML declaration
	latin1 := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r)) // the generated invoice's characters are all below U+0100
		}
		return b
	}
	want := Validate([]byte(plain), Auto, "en")
	if want.Rejected() || len(want.Service) != 0 {
		t.Fatalf("the UTF-8 document: %+v", want)
	}
	cases := []struct {
		name      string
		doc       []byte
		service   map[string]int
		noVerdict bool // the official rules' parser does not read it (TestEncodingNamesAsTheOfficialParser)
	}{
		{"UTF-8 without a declaration", []byte(body), nil, false},
		{"UTF-8 declared utf8", []byte(`<?xml version="1.0" encoding="utf8"?>` + body), nil, true},
		{"UTF-8 with a mark", []byte("\xEF\xBB\xBF" + plain), map[string]int{RuleBOM: 1}, false},
		{"ISO-8859-1", latin1(`<?xml version="1.0" encoding="ISO-8859-1"?>` + body), map[string]int{RuleEncoding: 1}, false},
		{"UTF-16 declared", utf16LE(`<?xml version="1.0" encoding="UTF-16"?>` + body), map[string]int{RuleBOM: 1, RuleEncoding: 1}, false},
		{"UTF-16 undeclared", utf16LE(body), map[string]int{RuleBOM: 1, RuleEncoding: 1}, false},
		{"UTF-16 declared UTF-8", utf16LE(`<?xml version="1.0" encoding="UTF-8"?>` + body), map[string]int{RuleBOM: 1, RuleEncoding: 1}, true},
	}
	for _, c := range cases {
		r := Validate(c.doc, Auto, "en")
		if !maps.Equal(r.Service, c.service) {
			t.Errorf("%s: service findings %v, want %v", c.name, r.Service, c.service)
		}
		if r.XSDValid != want.XSDValid {
			t.Errorf("%s: schema-valid %v", c.name, r.XSDValid)
		}
		switch {
		case c.noVerdict && (r.NoVerdict == "" || len(r.Fatal)+len(r.Warning) > 0):
			t.Errorf("%s: a verdict (%v %v), where the official rules give none", c.name, r.Fatal, r.Warning)
		case !c.noVerdict && (!maps.Equal(r.Fatal, want.Fatal) || !maps.Equal(r.Warning, want.Warning) || r.NoVerdict != ""):
			t.Errorf("%s: rules %v %v %q, want those of the UTF-8 document", c.name, r.Fatal, r.Warning, r.NoVerdict)
		}
		if r.Rejected() != (len(c.service) > 0 || c.noVerdict) {
			t.Errorf("%s: rejected %v", c.name, r.Rejected())
		}
	}
}

// utf16LE is s in UTF-16, little-endian, after its byte-order mark.
func utf16LE(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// A namespace name that is not a URI is an error to libxml2, so xmllint (the official schema verdict)
// fails the document, but the rules' parser takes any string: the rules give their usual answer.
func TestNamespaceNameNotAURI(t *testing.T) {
	plain := string(generatedInvoice(2))
	docs := map[string][]byte{
		"unused.xml":   []byte(strings.Replace(plain, "<Invoice ", `<Invoice xmlns:x="urn:a b" `, 1)),
		"escape.xml":   []byte(strings.Replace(plain, "<Invoice ", `<Invoice xmlns:x="%zz" `, 1)),
		"plain.xml":    []byte(plain),
		"twice.xml":    []byte(strings.Replace(strings.Replace(plain, "<Invoice ", `<Invoice xmlns:x="a b" `, 1), "<cbc:ID>", `<cbc:ID xmlns:y="c d">`, 1)),
		"relative.xml": []byte(strings.Replace(plain, "<Invoice ", `<Invoice xmlns:x="relative/name" `, 1)),
	}
	valid := checkSchemaAsXmllint(t, docs, Validate([]byte(plain), Auto, "en"))
	if !valid["plain.xml"] || valid["unused.xml"] {
		t.Fatal("xmllint's verdicts are not the ones this test is about")
	}
}

// checkSchemaAsXmllint checks that each invoice gets xmllint's verdict with the Invoice schema (the
// official schema verdict) and, from the rules, the answer they give want's document; it returns
// xmllint's verdicts by name.
func checkSchemaAsXmllint(t *testing.T, docs map[string][]byte, want *Result) map[string]bool {
	t.Helper()
	schemas, err := ubltest.SchemaDir()
	if err != nil {
		t.Skip(err)
	}
	valid := schemaVerdicts(t, filepath.Join(schemas, "maindoc", "UBL-Invoice-2.1.xsd"), docs)
	for name, doc := range docs {
		r := Validate(doc, Auto, "en")
		if r.XSDValid != valid[name] {
			t.Errorf("%s: schema-valid %v, by xmllint %v", name, r.XSDValid, valid[name])
		}
		if r.NoVerdict != "" || !maps.Equal(r.Fatal, want.Fatal) || !maps.Equal(r.Warning, want.Warning) {
			t.Errorf("%s: rules %v %v %q, want %v %v", name, r.Fatal, r.Warning, r.NoVerdict, want.Fatal, want.Warning)
		}
	}
	return valid
}

// A bare document type declaration is read, as xmllint and the official rules' parser read it: the
// official verdict is given, and the service refuses the document with a finding of its own.
func TestBareDoctypeIsAServiceFinding(t *testing.T) {
	plain := string(generatedInvoice(2))
	want := Validate([]byte(plain), Auto, "en")
	at := strings.Index(plain, "?>") + 2
	for _, decl := range []string{"<!DOCTYPE Invoice>", `<!DOCTYPE Invoice [ <!ELEMENT Invoice ANY> ]>`} {
		r := Validate([]byte(plain[:at]+"\n"+decl+plain[at:]), Auto, "en")
		if !maps.Equal(r.Service, map[string]int{RuleDoctype: 1}) || !r.Rejected() {
			t.Errorf("%s: service findings %v", decl, r.Service)
		}
		if r.XSDValid != want.XSDValid || !maps.Equal(r.Fatal, want.Fatal) || !maps.Equal(r.Warning, want.Warning) || r.NoVerdict != "" {
			t.Errorf("%s: official verdict %v %v %v %q, want that of the document without it", decl, r.XSDValid, r.Fatal, r.Warning, r.NoVerdict)
		}
	}
	for _, decl := range []string{`<!DOCTYPE Invoice SYSTEM "x.dtd">`, `<!DOCTYPE Invoice [<!ENTITY e "EUR">]>`} {
		if r := Validate([]byte(plain[:at]+"\n"+decl+plain[at:]), Auto, "en"); r.NoVerdict == "" || r.Service != nil {
			t.Errorf("%s: read (%+v)", decl, r.Service)
		}
	}
}
