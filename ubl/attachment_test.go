package ubl

import (
	"strings"
	"testing"
)

// DT-CIUS-PT-111.2 limits an attachment to 15,000 KB of decoded data, reckoned from its length in
// characters (times 0.75, over 1024): 20,480,000 characters are too many, one fewer is not, and a
// value of that many bytes but fewer characters is not either.
func TestAttachmentSizeLimit(t *testing.T) {
	const limit = 20_480_000
	doc := func(value string) []byte {
		return []byte(invoiceStart + `<cac:AdditionalDocumentReference><cbc:ID>1</cbc:ID><cac:Attachment>` +
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
	plain := string(generatedInvoice(2))
	withAttachment := func(chars int) string {
		ref := `<cac:AdditionalDocumentReference><cbc:ID>1</cbc:ID><cac:Attachment>` +
			`<cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="a.pdf">` + strings.Repeat("QUJD", chars/4) +
			`</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`
		return strings.Replace(plain, "<cac:AccountingSupplierParty>", ref+"<cac:AccountingSupplierParty>", 1)
	}
	docs := map[string][]byte{"under.xml": []byte(withAttachment(10_000_000)), "over.xml": []byte(withAttachment(10_000_004))}
	valid := checkSchemaAsXmllint(t, docs, Validate([]byte(withAttachment(8)), Auto, "en"))
	if !valid["under.xml"] || valid["over.xml"] {
		t.Fatalf("xmllint's verdicts %v are not the ones this test is about", valid)
	}
}
