package signing

import (
	"testing"
	"time"
)

// A file that is no readable PDF is told apart from a seal that cannot sign.
func TestUnreadablePDFIsTheFilesFault(t *testing.T) {
	for name, pdf := range map[string][]byte{"not a PDF": []byte("hello"), "damaged": []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n")} {
		if _, err := SignPDF(pdf, pki().seal, time.Now(), PDFOptions{}); !IsUnreadablePDF(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := SignPDF(minimalPDF(), pki().seal, time.Now(), PDFOptions{}); err != nil || IsUnreadablePDF(err) {
		t.Fatalf("a readable PDF: %v", err)
	}
}
