package signing

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"einvoice/ubl/ubltest"
)

// damagedPDFs are the PDF made here, and the same rewritten by qpdf with object and cross-reference
// streams, each damaged as ERPs damage their cross-reference tables.
func damagedPDFs(t *testing.T) map[string][]byte {
	plain, compressed := minimalPDF(), compressedPDF(t)
	startxref := regexp.MustCompile(`startxref\s+\d+`)
	shift := regexp.MustCompile(`(?m)^(\d{10}) (\d{5}) n`)
	return map[string][]byte{
		// Offsets counted before a line-ending conversion.
		"line endings converted": bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n")),
		// Every offset off by a few bytes.
		"offsets shifted": shift.ReplaceAllFunc(plain, func(m []byte) []byte {
			var off, gen int
			fmt.Sscanf(string(m), "%d %d", &off, &gen)
			return fmt.Appendf(nil, "%010d %05d n", off+7, gen)
		}),
		// startxref points into the middle of an object.
		"startxref wrong": startxref.ReplaceAll(plain, []byte("startxref\n20")),
		// The table is cut short: the file ends after its objects and a trailer.
		"table missing": append(plain[:bytes.Index(plain, []byte("xref\n"))], []byte("trailer\n<< /Size 6 /Root 1 0 R >>\n%%EOF\n")...),
		// No table and no trailer at all: only the objects.
		"objects only": plain[:bytes.Index(plain, []byte("xref\n"))],
		// A cross-reference stream that startxref misses, with the objects in an object stream.
		"streams, startxref wrong": startxref.ReplaceAll(compressed, []byte("startxref\n9")),
	}
}

func TestDamagedCrossReferenceIsRepairedAndSigned(t *testing.T) {
	pdfsig, qpdf := ubltest.Need(t, "pdfsig"), ubltest.Need(t, "qpdf")
	for name, pdf := range damagedPDFs(t) {
		t.Run(name, func(t *testing.T) {
			if f, err := followXref(pdf); err == nil {
				if _, _, _, _, _, err := f.signingBase(); err == nil {
					t.Fatal("the damage leaves the cross-reference readable: the case tests nothing")
				}
			}
			// A second signature goes on top of the repaired file as a plain incremental update.
			signed := signTwice(t, pdf, pki().seal, pki().ecSeal)
			if !bytes.HasPrefix(signed, pdf) {
				t.Fatal("the original bytes were not kept")
			}
			file := filepath.Join(t.TempDir(), "signed.pdf")
			os.WriteFile(file, signed, 0o600)
			if out, _ := exec.Command(pdfsig, file).CombinedOutput(); !strings.Contains(string(out), "Signature Validation: Signature is Valid.") ||
				!strings.Contains(string(out), "Total document signed") {
				t.Fatalf("pdfsig:\n%s", out)
			}
			if out, err := exec.Command(qpdf, "--check", file).CombinedOutput(); err != nil || !strings.Contains(string(out), "No syntax or stream encoding errors") {
				t.Fatalf("qpdf --check: %v\n%s", err, out)
			}
		})
	}
}

// What no repair can read stays refused as an unreadable PDF.
func TestUnrepairablePDFsAreRefused(t *testing.T) {
	encrypted := bytes.Replace(minimalPDF(), []byte("/Root 1 0 R"), []byte("/Root 1 0 R /Encrypt << /Filter /Standard >>"), 1)
	for name, pdf := range map[string][]byte{
		"no objects":         []byte("%PDF-1.7\nthis is no PDF a reader can open\n"),
		"no catalog":         pdfOf("<< /Type /Pages /Kids [] /Count 0 >>")[:40],
		"encrypted":          encrypted,
		"encrypted, damaged": bytes.Replace(encrypted, []byte("startxref\n"), []byte("startxref\n1"), 1),
		"no page":            pdfOf("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"),
	} {
		if _, err := SignPDF(pdf, pki().seal, time.Now(), PDFOptions{}); !IsUnreadablePDF(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := SignPDF(encrypted, pki().seal, time.Now(), PDFOptions{}); !errors.Is(err, errEncrypted) {
		t.Errorf("encrypted: %v", err)
	}
}
