package ubl

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf16"
)

// The service accepts UTF-8 without a byte-order mark only: a mark or another encoding is a finding of
// its own, whatever the document declares, and the official verdict is the one on the same content in
// UTF-8.
func TestEncodingFindings(t *testing.T) {
	plain := string(generatedInvoice(2))
	body := plain[strings.Index(plain, "?>")+2:] // without its XML declaration
	utf16le := func(s string) []byte {
		b := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return b
	}
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
		name    string
		doc     []byte
		service map[string]int
	}{
		{"UTF-8 without a declaration", []byte(body), nil},
		{"UTF-8 with a mark", []byte("\xEF\xBB\xBF" + plain), map[string]int{RuleBOM: 1}},
		{"ISO-8859-1", latin1(`<?xml version="1.0" encoding="ISO-8859-1"?>` + body), map[string]int{RuleEncoding: 1}},
		{"UTF-16 declared", utf16le(`<?xml version="1.0" encoding="UTF-16"?>` + body), map[string]int{RuleBOM: 1, RuleEncoding: 1}},
		{"UTF-16 undeclared", utf16le(body), map[string]int{RuleBOM: 1, RuleEncoding: 1}},
		{"UTF-16 declared UTF-8", utf16le(`<?xml version="1.0" encoding="UTF-8"?>` + body), map[string]int{RuleBOM: 1, RuleEncoding: 1}},
	}
	for _, c := range cases {
		r := Validate(c.doc, Auto, "en")
		if !maps.Equal(r.Service, c.service) {
			t.Errorf("%s: service findings %v, want %v", c.name, r.Service, c.service)
		}
		if r.XSDValid != want.XSDValid || !maps.Equal(r.Fatal, want.Fatal) || !maps.Equal(r.Warning, want.Warning) || r.NoVerdict != "" {
			t.Errorf("%s: official verdict %v %v %v %q, want that of the UTF-8 document", c.name, r.XSDValid, r.Fatal, r.Warning, r.NoVerdict)
		}
		if r.Rejected() != (len(c.service) > 0) {
			t.Errorf("%s: rejected %v", c.name, r.Rejected())
		}
	}
}
