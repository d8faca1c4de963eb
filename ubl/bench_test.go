package ubl

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"einvoice/ubl/ubltest"
)

// typicalInvoices are the corpus's typical invoices (ubltest.TypicalInvoices).
func typicalInvoices(b *testing.B) [][]byte {
	docs, err := ubltest.TypicalInvoices()
	if err != nil {
		b.Skip(err)
	}
	return docs
}

// BenchmarkValidateTypicalInvoice is full validation (parse, schema, all CIUS-PT rules) of the corpus's
// typical invoices, one core. It reports the median over the invoices of each one's mean time, and,
// less sensitive to bursts of load on a shared machine, the median of single validations (64 timings
// of each invoice, drawn evenly from all rounds by reservoir sampling).
func BenchmarkValidateTypicalInvoice(b *testing.B) {
	docs := typicalInvoices(b)
	const kept = 64
	perDoc := make([]time.Duration, len(docs))
	last := make([][kept]time.Duration, len(docs))
	b.ReportAllocs()
	b.ResetTimer()
	rounds, rng := 0, rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		slot := rounds // where this round's timings go, if kept
		if rounds >= kept {
			slot = rng.IntN(rounds + 1)
		}
		for i, d := range docs {
			start := time.Now()
			if r := Validate(d, Auto, "en"); r.Root == nil {
				b.Fatal("not parsed")
			}
			took := time.Since(start)
			perDoc[i] += took
			if slot < kept {
				last[i][slot] = took
			}
		}
		rounds++
	}
	slices.Sort(perDoc)
	median := perDoc[len(perDoc)/2] / time.Duration(rounds)
	var single []time.Duration
	for i := range last {
		single = append(single, last[i][:min(rounds, kept)]...)
	}
	slices.Sort(single)
	b.ReportMetric(float64(median.Nanoseconds())/1000, "median-µs/invoice")
	b.ReportMetric(float64(single[len(single)/2].Nanoseconds())/1000, "single-median-µs")
	b.ReportMetric(float64(len(docs)), "invoices")
}
