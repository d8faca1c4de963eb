package xmltree

import (
	"os"
	"testing"
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
