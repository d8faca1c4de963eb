package ubl

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"einvoice/internal/corpus"
)

// typicalInvoices are the corpus's schema-valid CIUS-PT documents of 5 to 25 KB.
func typicalInvoices(b *testing.B) [][]byte {
	profiles, err := corpus.Profiles()
	if err != nil {
		b.Skip(err)
	}
	var docs [][]byte
	for _, e := range profiles[0].Expected {
		if !e.XSDValid {
			continue
		}
		data, err := os.ReadFile(filepath.Join(profiles[0].Cases, e.File))
		if err != nil {
			b.Fatal(err)
		}
		if len(data) >= 5<<10 && len(data) <= 25<<10 {
			docs = append(docs, data)
		}
	}
	if len(docs) == 0 {
		b.Skip("no typical invoice in the corpus")
	}
	return docs
}

// BenchmarkValidateTypicalInvoice is full validation (parse, schema, all CIUS-PT rules) of the corpus's
// typical invoices, one core. It reports the median time per invoice.
func BenchmarkValidateTypicalInvoice(b *testing.B) {
	docs := typicalInvoices(b)
	perDoc := make([]time.Duration, len(docs))
	b.ReportAllocs()
	b.ResetTimer()
	rounds := 0
	for b.Loop() {
		for i, d := range docs {
			start := time.Now()
			if r := Validate(d, Auto, "en"); r.Root == nil {
				b.Fatal("not parsed")
			}
			perDoc[i] += time.Since(start)
		}
		rounds++
	}
	sort.Slice(perDoc, func(i, j int) bool { return perDoc[i] < perDoc[j] })
	median := perDoc[len(perDoc)/2] / time.Duration(rounds)
	b.ReportMetric(float64(median.Nanoseconds())/1000, "median-µs/invoice")
	b.ReportMetric(float64(len(docs)), "invoices")
}
