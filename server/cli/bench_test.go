package cli

import (
	"bytes"
	"testing"
)

// The bench's invoices pass validation, with and without their visual PDF, and carry the number
// placeholder once.
func TestBenchInvoiceIsValid(t *testing.T) {
	for _, withPDF := range []bool{false, true} {
		xml, err := benchInvoice("508025338", "500000000", 8, withPDF)
		if err != nil {
			t.Fatal(withPDF, err)
		}
		if n := bytes.Count(xml, []byte(benchNumber)); n != 1 {
			t.Errorf("withPDF %v: the number placeholder occurs %d times", withPDF, n)
		}
		t.Logf("withPDF %v: %d bytes", withPDF, len(xml))
	}
}
