package signing

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"einvoice/ubl"
	"einvoice/ubl/ubltest"
)

// A signed invoice is the one place the schema's lax wildcards meet content: the signature sits in
// ext:ExtensionContent, a lax wildcard, and its xmldsig and XAdES 1.3.2 elements are declared in the
// UBL schema set, so they are validated where known. The corpus has no signed document, so signed
// invoices and variants of them (elements removed, repeated, renamed, moved, values and attributes
// changed, inside the signature too) are put to xmllint with the official schemas, and the validator
// must give the same verdict on each.
func TestSignedDocumentsGetTheOfficialSchemaVerdict(t *testing.T) {
	ubltest.Need(t, "xmllint")
	schemas, err := ubltest.SchemaDir()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	var files []string
	for name, seal := range map[string]*Seal{"rsa": pki().seal, "ecdsa": pki().ecSeal} {
		signed, err := SignXML(sampleInvoice(t), seal, time.Now(), XMLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		docs := append([][]byte{signed}, ubltest.Variants(signed, 400, uint64(len(name)))...)
		for k, doc := range docs {
			f := filepath.Join(dir, fmt.Sprintf("%s-%03d.xml", name, k))
			if err := os.WriteFile(f, doc, 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	official := ubltest.SchemaValid(t, filepath.Join(schemas, "maindoc", "UBL-Invoice-2.1.xsd"), files)
	if !official[files[0]] {
		t.Fatal("xmllint refuses the signed invoice itself")
	}
	valid, disagree := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := ubl.Validate(data, ubl.CIUSPT, "en").XSDValid
		if official[f] {
			valid++
		}
		if got != official[f] {
			if disagree++; disagree <= 10 {
				t.Errorf("%s: schema-valid here %v, by xmllint %v", filepath.Base(f), got, official[f])
			}
		}
	}
	// Both verdicts must be well represented, or the comparison says little.
	if valid < len(files)/5 || valid > len(files)*4/5 {
		t.Errorf("%d of %d documents schema-valid: the variants should give both verdicts often", valid, len(files))
	}
	t.Logf("%d signed documents (%d schema-valid), %d disagreements", len(files), valid, disagree)
}
