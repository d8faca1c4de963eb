package mutant

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Every respelling is well-formed, changes the document, and keeps its elements (by namespace and
// local name, in order), their attributes and their text, but for whitespace between elements.
func TestRespellingsKeepTheContent(t *testing.T) {
	doc := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2">
  <cbc:ID>1</cbc:ID>
  <cac:TaxTotal>
    <cbc:TaxAmount currencyID="EUR">23.00</cbc:TaxAmount>
    <cac:TaxSubtotal/>
  </cac:TaxTotal>
  <cbc:Note>a &amp; b</cbc:Note>
</Invoice>`)
	want := content(t, doc)
	for form := range Respellings {
		v := Respell(doc, form)
		if bytes.Equal(v, doc) {
			t.Errorf("form %d: unchanged", form)
		}
		if got := content(t, v); got != want {
			t.Errorf("form %d: content\n%s\nwant\n%s\ndocument:\n%s", form, got, want, v)
		}
	}
}

// content lists a document's elements, attributes and non-blank text, namespaces resolved.
func content(t *testing.T, doc []byte) string {
	t.Helper()
	var b strings.Builder
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatalf("not well-formed (%v):\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			fmt.Fprintf(&b, "<%s %s", tok.Name.Space, tok.Name.Local)
			for _, a := range tok.Attr {
				if a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
					fmt.Fprintf(&b, " %s=%q", a.Name.Local, a.Value)
				}
			}
			b.WriteString(">")
		case xml.EndElement:
			b.WriteString("</>")
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				b.WriteString(s)
			}
		}
	}
}
