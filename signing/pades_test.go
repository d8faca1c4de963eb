package signing

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"einvoice/signing/signingtest"
	"einvoice/ubl/ubltest"
)

// minimalPDF is a one-page PDF with a classic cross-reference table.
func minimalPDF() []byte {
	content := "BT /F1 24 Tf 72 760 Td (Fatura FT 2026/1) Tj ET"
	return pdfOf(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
}

// pdfOf is a PDF of the objects, numbered from 1 (the first is the catalog), with a classic
// cross-reference table.
func pdfOf(objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /ID [<01020304> <01020304>] >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// compressedPDF is the same PDF rewritten by qpdf with object and cross-reference streams.
func compressedPDF(t *testing.T) []byte {
	qpdf := ubltest.Need(t, "qpdf")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
	os.WriteFile(in, minimalPDF(), 0o600)
	if msg, err := exec.Command(qpdf, "--object-streams=generate", in, out).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v %s", err, msg)
	}
	data, _ := os.ReadFile(out)
	if !bytes.Contains(data, []byte("/ObjStm")) {
		t.Fatal("qpdf wrote no object stream")
	}
	return data
}

// signTwice signs pdf with first, checks the one PAdES signature over the whole file, signs that
// again with second on top and checks both signatures; it returns the PDF signed once.
func signTwice(t *testing.T, pdf []byte, first, second *Seal) []byte {
	t.Helper()
	signed, err := SignPDF(pdf, first, time.Now(), PDFOptions{Reason: "Fatura eletrónica"})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := VerifyPDF(signed)
	if err != nil || len(infos) != 1 || infos[0].Kind != "PAdES" || infos[0].Covered != "the whole file" {
		t.Fatalf("verify: %v %+v", err, infos)
	}
	twice, err := SignPDF(signed, second, time.Now(), PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if infos, err := VerifyPDF(twice); err != nil || len(infos) != 2 {
		t.Fatalf("two signatures: %v %+v", err, infos)
	}
	return signed
}

func TestPAdESSignAndVerify(t *testing.T) {
	inputs := map[string][]byte{"table": minimalPDF(), "streams": compressedPDF(t)}
	for name, pdf := range inputs {
		for sealName, seal := range map[string]*Seal{"RSA": pki().seal, "ECDSA": pki().ecSeal} {
			t.Run(name+"/"+sealName, func(t *testing.T) {
				signed := signTwice(t, pdf, seal, seal)
				if !bytes.HasPrefix(signed, pdf) {
					t.Fatal("not an incremental update")
				}
			})
		}
	}
}

func TestPAdESRejectsTampering(t *testing.T) {
	signed, err := SignPDF(minimalPDF(), pki().seal, time.Now(), PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(signed, []byte("FT 2026/1"), []byte("FT 2026/9"), 1)
	if _, err := VerifyPDF(tampered); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("tampered content: %v", err)
	}
	i := bytes.LastIndex(signed, []byte("/Contents <")) + 20
	flipped := append([]byte{}, signed...)
	flipped[i] ^= 1
	if _, err := VerifyPDF(flipped); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("tampered signature: %v", err)
	}
	if _, err := VerifyPDF(minimalPDF()); !errors.Is(err, ErrNoSignature) {
		t.Fatalf("unsigned: %v", err)
	}
	if _, err := VerifyPDF([]byte("not a pdf")); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("not a PDF: %v", err)
	}
}

// Every signature is checked over the whole file, so a file may carry a bounded number of them.
func TestVerifyPDFChecksABoundedNumberOfSignatures(t *testing.T) {
	pdf := minimalPDF()
	for n := 1; n <= pdfMaxSignatures+1; n++ {
		var err error
		if pdf, err = SignPDF(pdf, pki().ecSeal, time.Now(), PDFOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := VerifyPDF(pdf); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("%d signatures: %v", pdfMaxSignatures+1, err)
	}
	// The same file without its last update.
	withoutLast := pdf[:bytes.LastIndex(pdf[:bytes.LastIndex(pdf, []byte("%%EOF"))], []byte("%%EOF"))+len("%%EOF\n")]
	if infos, err := VerifyPDF(withoutLast); err != nil || len(infos) != pdfMaxSignatures {
		t.Fatalf("%d signatures: %d verified, %v", pdfMaxSignatures, len(infos), err)
	}
}

// However many references lead to an object, it is read once: without that, a field list of 20,000
// references to one large object (every object number at its offset in the cross-reference table)
// would have it read 20,000 times (20 GB), and the verification would not end.
func TestVerifyPDFReadsEachObjectOnce(t *testing.T) {
	const refs = 20_000
	var fields strings.Builder
	for i := range refs {
		fmt.Fprintf(&fields, "%d 0 R ", i+2)
	}
	body := pdfOf("<< /Type /Catalog /AcroForm << /Fields ["+fields.String()+"] >> >>", "<< /A ["+strings.Repeat("0 ", 1<<19)+"] >>")
	body = body[:bytes.LastIndex(body, []byte("xref\n"))]
	var b bytes.Buffer
	b.Write(body)
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n%010d 00000 n \n", refs+2, bytes.Index(body, []byte("1 0 obj")))
	large := fmt.Sprintf("%010d 00000 n \n", bytes.Index(body, []byte("2 0 obj")))
	b.WriteString(strings.Repeat(large, refs))
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", refs+2, len(body))
	if _, err := VerifyPDF(b.Bytes()); !errors.Is(err, ErrNoSignature) {
		t.Fatal(err)
	}
}

func TestPAdESCheckedByPdfsigQpdfAndOpenSSL(t *testing.T) {
	pdfsig, qpdf, openssl := ubltest.Need(t, "pdfsig"), ubltest.Need(t, "qpdf"), ubltest.Need(t, "openssl")
	for name, pdf := range map[string][]byte{"table": minimalPDF(), "streams": compressedPDF(t)} {
		for sealName, seal := range map[string]*Seal{"RSA": pki().seal, "ECDSA": pki().ecSeal} {
			t.Run(name+"/"+sealName, func(t *testing.T) {
				signed, err := SignPDF(pdf, seal, time.Now(), PDFOptions{Reason: "Fatura eletrónica"})
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				file := filepath.Join(dir, "signed.pdf")
				os.WriteFile(file, signed, 0o600)
				out, _ := exec.Command(pdfsig, file).CombinedOutput()
				if !strings.Contains(string(out), "Signature Validation: Signature is Valid.") || !strings.Contains(string(out), "ETSI.CAdES.detached") ||
					!strings.Contains(string(out), "Total document signed") {
					t.Fatalf("pdfsig:\n%s", out)
				}
				if out, err := exec.Command(qpdf, "--check", file).CombinedOutput(); err != nil {
					t.Fatalf("qpdf --check: %v\n%s", err, out)
				}
				// The CMS: no signing time, and openssl verifies it over the byte range with the CA.
				f, _ := parsePDF(signed)
				var sig pdfDict
				root, _ := f.resolve(f.trailer.get("Root"), 0).(pdfDict)
				form, _ := f.resolve(root.get("AcroForm"), 0).(pdfDict)
				fields, _ := f.resolve(form.get("Fields"), 0).(pdfArray)
				field, _ := f.resolve(fields[len(fields)-1], 0).(pdfDict)
				sig, _ = f.resolve(field.get("V"), 0).(pdfDict)
				cms := []byte(sig.get("Contents").(pdfString))
				br := sig.get("ByteRange").(pdfArray)
				start, end := br[1].(int64), br[2].(int64)
				content := append(append([]byte{}, signed[:start]...), signed[end:]...)
				cmsFile, contentFile := filepath.Join(dir, "sig.der"), filepath.Join(dir, "content.bin")
				os.WriteFile(cmsFile, trimDER(cms), 0o600)
				os.WriteFile(contentFile, content, 0o600)
				printed, err := exec.Command(openssl, "cms", "-cmsout", "-print", "-inform", "DER", "-in", cmsFile).CombinedOutput()
				if err != nil || strings.Contains(string(printed), "signingTime") || !strings.Contains(string(printed), "id-smime-aa-signingCertificateV2") {
					t.Fatalf("openssl cms -print: %v\n%s", err, printed)
				}
				if out, err := exec.Command(openssl, "cms", "-verify", "-binary", "-inform", "DER", "-in", cmsFile, "-content", contentFile,
					"-CAfile", writeCAPEM(t), "-purpose", "any", "-out", os.DevNull).CombinedOutput(); err != nil {
					t.Fatalf("openssl cms -verify: %v\n%s", err, out)
				}
			})
		}
	}
}

// trimDER cuts the zero padding after a DER element.
func trimDER(b []byte) []byte {
	if len(b) < 2 {
		return b
	}
	n := int(b[1])
	header := 2
	if n >= 0x80 {
		k := n & 0x7f
		n = 0
		for i := 0; i < k; i++ {
			n = n<<8 | int(b[2+i])
		}
		header += k
	}
	return b[:min(len(b), header+n)]
}

// A PDF signed by openssl (PKCS#7 detached, the older /adbe.pkcs7.detached kind, signing time
// included) verifies, as pdfsig agrees; a modified byte breaks it.
func TestPKCS7SignedByOpenSSLVerifies(t *testing.T) {
	pdfsig := ubltest.Need(t, "pdfsig")
	ours, err := SignPDF(minimalPDF(), pki().seal, time.Now(), PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	signed := signingtest.ResignedByOpenSSL(t, ours, signingtest.WriteSeal(t, pki().seal.Signer, pki().seal.Certificate))
	infos, err := VerifyPDF(signed)
	if err != nil || len(infos) != 1 || infos[0].Kind != "PKCS#7" {
		t.Fatalf("verify: %v %+v", err, infos)
	}
	file := filepath.Join(t.TempDir(), "openssl.pdf")
	os.WriteFile(file, signed, 0o600)
	if out, _ := exec.Command(pdfsig, file).CombinedOutput(); !strings.Contains(string(out), "Signature is Valid") || !strings.Contains(string(out), "adbe.pkcs7.detached") {
		t.Fatalf("pdfsig:\n%s", out)
	}
	if _, err := VerifyPDF(bytes.Replace(signed, []byte("FT 2026/1"), []byte("FT 2026/7"), 1)); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("tampered: %v", err)
	}
}
