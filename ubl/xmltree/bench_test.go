package xmltree

import (
	"os"
	"slices"
	"testing"
	"time"

	"einvoice/ubl/ubltest"
)

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("../../../shared/conformance/cases/cius-pt/ilink-samples/multiplas_isencoes.xml")
	if err != nil {
		b.Skip("../shared/conformance is absent:", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLibxml2Alone is what libxml2 itself takes to read the corpus's typical invoices, as Parse has
// it read them (the same context, input and options) but with handlers that do nothing: the part of a
// validation no code of this project can make faster. Compare BenchmarkParseTypical (the tree built
// too) and, in package ubl, BenchmarkValidateTypicalInvoice.
func BenchmarkLibxml2Alone(b *testing.B) {
	docs := typicalInvoices(b)
	p, err := takeParser()
	if err != nil {
		b.Fatal(err)
	}
	defer giveBack(p)
	medianPerInvoice(b, docs, func(d []byte) {
		if !p.readOnly(d) {
			b.Fatal("a typical invoice is not well-formed")
		}
	})
}

// BenchmarkParseTypical is Parse over the same invoices: libxml2 and the tree this package builds.
func BenchmarkParseTypical(b *testing.B) {
	docs := typicalInvoices(b)
	medianPerInvoice(b, docs, func(d []byte) {
		t, err := Parse(d, DefaultLimits)
		if err != nil {
			b.Fatal(err)
		}
		t.Release()
	})
}

// medianPerInvoice runs read over every document each round and reports, as the ubl package's
// BenchmarkValidateTypicalInvoice does, the median over the documents of each one's mean time.
func medianPerInvoice(b *testing.B, docs [][]byte, read func([]byte)) {
	perDoc := make([]time.Duration, len(docs))
	rounds := 0
	for b.Loop() {
		for i, d := range docs {
			start := time.Now()
			read(d)
			perDoc[i] += time.Since(start)
		}
		rounds++
	}
	slices.Sort(perDoc)
	b.ReportMetric(float64(perDoc[len(perDoc)/2].Nanoseconds())/float64(rounds)/1000, "median-µs/invoice")
}

func typicalInvoices(b *testing.B) [][]byte {
	docs, err := ubltest.TypicalInvoices()
	if err != nil {
		b.Skip(err)
	}
	return docs
}
