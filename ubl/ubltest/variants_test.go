package ubltest

import (
	"bytes"
	"encoding/xml"
	"io"
	"testing"
)

// Every variant is well-formed, and most differ from the document.
func TestVariantsAreWellFormed(t *testing.T) {
	doc := []byte(`<?xml version="1.0"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:cbc" xmlns:cac="urn:cac">
  <cbc:ID>1</cbc:ID>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">23.00</cbc:TaxAmount><cac:TaxSubtotal/></cac:TaxTotal>
  <cbc:Note>a &amp; b</cbc:Note>
</Invoice>`)
	changed := 0
	variants := Variants(doc, 500, 1)
	if len(variants) != 500 {
		t.Fatalf("%d variants, want 500", len(variants))
	}
	for _, v := range variants {
		d := xml.NewDecoder(bytes.NewReader(v))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed (%v):\n%s", err, v)
			}
		}
		if !bytes.Equal(v, doc) {
			changed++
		}
	}
	if changed < 400 {
		t.Errorf("only %d of 500 variants differ from the document", changed)
	}
	if Variants([]byte("<a>"), 3, 1) != nil {
		t.Error("a document that does not parse gave variants")
	}
}
