package signing

import (
	"testing"
	"time"

	"einvoice/ubl"
	render "einvoice/ubl/pdf"
)

// Signing costs with an RSA-2048 seal (targets: XAdES under 3 ms, PAdES under 10 ms):
//
//	go test ./signing -run XXX -bench .
func BenchmarkSignXML(b *testing.B) {
	doc := sampleInvoice(b)
	seal := pki().seal
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SignXML(doc, seal, time.Now(), XMLOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignPDF signs the visual PDF the service renders for a typical invoice (20 KB).
func BenchmarkSignPDF(b *testing.B) {
	doc, err := ubl.ReadBytes(sampleInvoice(b))
	if err != nil {
		b.Fatal(err)
	}
	pdf, err := render.Render(doc, render.Options{})
	if err != nil {
		b.Fatal(err)
	}
	seal := pki().seal
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SignPDF(pdf, seal, time.Now(), PDFOptions{Reason: "Fatura eletrónica"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyXML(b *testing.B) {
	signed, err := SignXML(sampleInvoice(b), pki().seal, time.Now(), XMLOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := VerifyXML(signed); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyPDF(b *testing.B) {
	signed, err := SignPDF(minimalPDF(), pki().seal, time.Now(), PDFOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := VerifyPDF(signed); err != nil {
			b.Fatal(err)
		}
	}
}
