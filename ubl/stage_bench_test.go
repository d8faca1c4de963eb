package ubl

import (
	"testing"
	"time"

	"einvoice/ubl/rules"
	"einvoice/ubl/rules/ciuspt"
	"einvoice/ubl/xmltree"
	"einvoice/ubl/xsd"
)

func BenchmarkStages(b *testing.B) {
	docs := typicalInvoices(b)
	var parse, schema time.Duration
	pat := make([]time.Duration, len(ciuspt.Set.Patterns))
	single := make([]*rules.Set, len(pat))
	for i, p := range ciuspt.Set.Patterns {
		single[i] = &rules.Set{Name: p.Name, Patterns: []*rules.Pattern{p}}
	}
	for b.Loop() {
		for _, d := range docs {
			s := time.Now()
			t, _ := xmltree.Parse(d, xmltree.DefaultLimits)
			parse += time.Since(s)
			s = time.Now()
			xsd.Validate(t)
			schema += time.Since(s)
			for i, set := range single {
				s = time.Now()
				set.Run(t)
				pat[i] += time.Since(s)
			}
			t.Release() // as Validate does: the next parse reuses the tree's memory
		}
	}
	n := float64(b.N * len(docs))
	b.ReportMetric(float64(parse.Nanoseconds())/n/1000, "parse-µs")
	b.ReportMetric(float64(schema.Nanoseconds())/n/1000, "xsd-µs")
	for i, p := range ciuspt.Set.Patterns {
		b.ReportMetric(float64(pat[i].Nanoseconds())/n/1000, p.Name+"-µs")
	}
}
