package ubl

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/internal/corpus"
	"einvoice/internal/testtool"
)

// DT-CIUS-PT-111.2 limits an attachment to 15,000 KB of decoded data, reckoned from its length in
// characters (times 0.75, over 1024): 20,480,000 characters are too many, one fewer is not, and a
// value of that many bytes but fewer characters is not either.
func TestAttachmentSizeLimit(t *testing.T) {
	const limit = 20_480_000
	doc := func(value string) []byte {
		return []byte(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"` +
			` xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"` +
			` xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">` +
			`<cac:AdditionalDocumentReference><cbc:ID>1</cbc:ID><cac:Attachment>` +
			`<cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="a.pdf">` + value +
			`</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference></Invoice>`)
	}
	for _, c := range []struct {
		name  string
		value string
		fires int
	}{
		{"at the limit", strings.Repeat("A", limit), 1},
		{"one character fewer", strings.Repeat("A", limit-1), 0},
		{"as many bytes, fewer characters", strings.Repeat("A", limit-2) + "é", 0},
	} {
		r := Validate(doc(c.value), CIUSPT, "en")
		if r.NoVerdict != "" || r.Fatal["DT-CIUS-PT-111.2"] != c.fires {
			t.Errorf("%s: DT-CIUS-PT-111.2 fires %d times (no verdict %q), want %d", c.name, r.Fatal["DT-CIUS-PT-111.2"], r.NoVerdict, c.fires)
		}
	}
}

// libxml2's tree builder, which xmllint uses, refuses a text node past 10,000,000 bytes, so the official
// schema verdict fails a document with such an attachment; the official rules read it. The schema
// check here fails it too, and the rules give their usual answer.
func TestTextPastLibxml2sLimitFailsTheSchemaCheck(t *testing.T) {
	schemas, err := corpus.SchemaDir()
	if err != nil {
		t.Skip(err)
	}
	plain := string(generatedInvoice(2))
	withAttachment := func(chars int) string {
		ref := `<cac:AdditionalDocumentReference><cbc:ID>1</cbc:ID><cac:Attachment>` +
			`<cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="a.pdf">` + strings.Repeat("QUJD", chars/4) +
			`</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`
		return strings.Replace(plain, "<cac:AccountingSupplierParty>", ref+"<cac:AccountingSupplierParty>", 1)
	}
	dir := t.TempDir()
	docs := map[string]string{"under.xml": withAttachment(10_000_000), "over.xml": withAttachment(10_000_004)}
	var files []string
	for name, doc := range docs {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	valid := testtool.SchemaValid(t, filepath.Join(schemas, "maindoc", "UBL-Invoice-2.1.xsd"), files)
	if !valid[filepath.Join(dir, "under.xml")] || valid[filepath.Join(dir, "over.xml")] {
		t.Fatalf("xmllint's verdicts %v are not the ones this test is about", valid)
	}
	want := Validate([]byte(withAttachment(8)), Auto, "en")
	for name, doc := range docs {
		r := Validate([]byte(doc), Auto, "en")
		if r.XSDValid != valid[filepath.Join(dir, name)] {
			t.Errorf("%s: schema-valid %v, by xmllint %v", name, r.XSDValid, valid[filepath.Join(dir, name)])
		}
		if r.NoVerdict != "" || !maps.Equal(r.Fatal, want.Fatal) || !maps.Equal(r.Warning, want.Warning) {
			t.Errorf("%s: rules %v %v %q, want those of a small attachment", name, r.Fatal, r.Warning, r.NoVerdict)
		}
	}
}
