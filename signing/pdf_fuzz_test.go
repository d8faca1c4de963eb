package signing

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzVerifyPDF puts the PDF reader to the files a self-signing issuer could upload: every input is
// either refused with ErrInvalidSignature or ErrNoSignature (which the service answers as the issuer's
// error), or verified with a report for each signature; never a panic. The seeds are PDFs made here
// (a classic cross-reference table, unsigned, signed once and twice, RSA and ECDSA; the same with its
// line endings converted, which damages its table, unsigned and signed after repair) and, in
// testdata/fuzz/FuzzVerifyPDF, the renderer's sample invoice signed, a PDF rewritten by qpdf with object
// and cross-reference streams and signed, and one signed by openssl cms the older PKCS#7 way.
func FuzzVerifyPDF(f *testing.F) {
	plain := minimalPDF()
	once, err := SignPDF(plain, pki().seal, time.Now(), PDFOptions{Reason: "Fatura eletrónica"})
	if err != nil {
		f.Fatal(err)
	}
	twice, err := SignPDF(once, pki().ecSeal, time.Now(), PDFOptions{})
	if err != nil {
		f.Fatal(err)
	}
	damaged := bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n"))
	repaired, err := SignPDF(damaged, pki().seal, time.Now(), PDFOptions{})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{plain, once, twice, damaged, repaired} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, pdf []byte) {
		infos, err := VerifyPDF(pdf)
		if err != nil {
			if infos != nil {
				t.Fatalf("reports %+v with the error %v", infos, err)
			}
			if !errors.Is(err, ErrInvalidSignature) && !errors.Is(err, ErrNoSignature) {
				t.Fatalf("an error of no known kind: %v", err)
			}
			return
		}
		if len(infos) == 0 {
			t.Fatal("verified without a signature")
		}
		for _, info := range infos {
			if info.Kind != "PAdES" && info.Kind != "PKCS#7" || info.Covered == "" {
				t.Fatalf("report %+v", info)
			}
		}
	})
}
