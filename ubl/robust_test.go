package ubl

import (
	"encoding/json"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// hostileDocuments are documents made to exhaust a parser, by name.
func hostileDocuments() map[string]string {
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&lol9;</Invoice>`
	valid := string(generatedInvoice(3))
	return map[string]string{
		"billion laughs":  laughs,
		"external entity": `<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY x SYSTEM "file:///etc/passwd">]><Invoice>&x;</Invoice>`,
		"external DTD":    `<?xml version="1.0"?><!DOCTYPE Invoice SYSTEM "http://127.0.0.1:9/ubl.dtd"><Invoice/>`,
		"10,000 deep":     strings.Repeat("<a>", 10000) + strings.Repeat("</a>", 10000),
		"50 MB text node": `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><cbc:Note xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">` + strings.Repeat("x", 50<<20) + `</cbc:Note></Invoice>`,
		"truncated":       valid[:len(valid)/2],
		"not XML":         "%PDF-1.7 this is not an invoice",
	}
}

// Hostile documents are refused with a clear finding, without the Go heap growing with what the
// document tries to make the parser build (how fast: BenchmarkValidateHostileDocuments).
func TestValidateRefusesHostileDocuments(t *testing.T) {
	for name, doc := range hostileDocuments() {
		t.Run(name, func(t *testing.T) {
			data := []byte(doc)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := Validate(data, Auto, "pt")
			runtime.ReadMemStats(&after)
			if !r.Rejected() || r.NoVerdict == "" || len(r.Findings) != 1 || r.Findings[0].Rule != RuleParse {
				t.Fatalf("not refused with %s: %+v", RuleParse, r)
			}
			if !strings.HasPrefix(r.Findings[0].Message, "["+RuleParse+"]-") {
				t.Fatalf("message %q", r.Findings[0].Message)
			}
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 8<<20 {
				t.Fatalf("allocated %d MB", grown>>20)
			}
		})
	}
}

// BenchmarkValidateHostileDocuments times the refusal of each hostile document; MB/s is how fast the
// document is read until it is refused.
func BenchmarkValidateHostileDocuments(b *testing.B) {
	docs := hostileDocuments()
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		data := []byte(docs[name])
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Validate(data, Auto, "pt")
			}
		})
	}
}

// FuzzValidate runs whole validations on mutated documents: no panic, a consistent verdict, findings
// that say which rule they come from.
func FuzzValidate(f *testing.F) {
	f.Add(generatedInvoice(2))
	f.Add([]byte(strings.Replace(string(generatedInvoice(1)), "Invoice", "CreditNote", 2)))
	f.Add([]byte(`<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"><ID xmlns="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">1</ID></Order>`))
	f.Add([]byte("\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Invoice/>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Validate(data, Auto, "en")
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
		fatal := 0
		for _, finding := range r.Findings {
			if !strings.HasPrefix(finding.Message, "["+finding.Rule+"]-") {
				t.Fatalf("message %q of %s", finding.Message, finding.Rule)
			}
			if finding.Flag == "fatal" {
				fatal++
			}
		}
		if r.Rejected() != (fatal > 0) {
			t.Fatalf("rejected %v with %d fatal findings: %+v", r.Rejected(), fatal, r)
		}
	})
}
