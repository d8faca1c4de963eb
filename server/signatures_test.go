package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"einvoice/signing"
	"einvoice/signing/signingtest"
	"einvoice/store"
	"einvoice/ubl"
	"einvoice/ubl/ubltest"
)

// issuerSeal is a seal of the test issuer (508025338), made once per run.
var issuerSeal = sync.OnceValue(func() *signing.Seal {
	now := time.Now()
	seal, err := signing.SelfSignedSeal("Fornecedor", "508025338", now.Add(-time.Hour), now.AddDate(1, 0, 0))
	if err != nil {
		panic(err)
	}
	return seal
})

// giveSeal stores a seal for the env's issuer.
func (e *docEnv) giveSeal(seal *signing.Seal) {
	e.t.Helper()
	if err := KeepSeal(context.Background(), e.st, e.entity.ID, seal); err != nil {
		e.t.Fatal(err)
	}
	e.entity, _ = e.st.EntityByID(context.Background(), e.entity.ID)
}

// file downloads one of a document's files (xml, pdf) as its issuer.
func (e *docEnv) file(id, which string) []byte {
	e.t.Helper()
	r := e.do("GET", "/api/v1/en/apps/documents/"+id+"/"+which, e.as(e.entity, ""), "")
	if r.status != 200 {
		e.t.Fatalf("GET %s: %d %s", which, r.status, r.raw)
	}
	return []byte(r.raw)
}

// created asserts a 201 and returns the document id.
func created(t *testing.T, r response) string {
	t.Helper()
	if r.status != 201 {
		t.Fatalf("want 201: %d %s", r.status, r.raw)
	}
	return data(r)["id"].(string)
}

// xmlSignature and pdfSignature give the kind of a file's first signature, "none" when it has none.
func xmlSignature(t *testing.T, doc []byte) string {
	t.Helper()
	infos, err := signing.VerifyXML(doc)
	return kindOf(t, infos, err)
}

func pdfSignature(t *testing.T, doc []byte) string {
	t.Helper()
	infos, err := signing.VerifyPDF(doc)
	return kindOf(t, infos, err)
}

func kindOf(t *testing.T, infos []signing.SignatureInfo, err error) string {
	t.Helper()
	if errors.Is(err, signing.ErrNoSignature) {
		return "none"
	}
	if err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
	return infos[0].Kind
}

// With a seal, the service signs what it issues: the XML with XAdES-BES (still valid UBL and CIUS-PT),
// the visual PDF it renders with PAdES; each flag skips its file; the independent verifiers agree.
func TestServiceSignsWithTheIssuersSeal(t *testing.T) {
	env := newDocEnv(t)
	env.giveSeal(issuerSeal())

	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("S1", env.customer.NIF, "")))
	xml, pdf := env.file(id, "xml"), env.file(id, "pdf")
	if kind := xmlSignature(t, xml); kind != "XAdES-BES" {
		t.Fatalf("XML signature: %s", kind)
	}
	if r := ubl.Validate(xml, ubl.Auto, "en"); r.Rejected() {
		t.Fatalf("the signed XML is not valid: %v %v", r.Fatal, r.Findings)
	}
	if kind := pdfSignature(t, pdf); kind != "PAdES" {
		t.Fatalf("PDF signature: %s", kind)
	}
	checkWithIndependentVerifiers(t, xml, pdf)

	for _, c := range []struct{ flag, xml, pdf string }{
		{`, "disable_xml_sign": 1`, "none", "PAdES"},
		{`, "disable_pdf_sign": 1`, "XAdES-BES", "none"},
	} {
		id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("S"+c.xml, env.customer.NIF, c.flag)))
		xml, pdf := env.file(id, "xml"), env.file(id, "pdf")
		if got := xmlSignature(t, xml); got != c.xml {
			t.Errorf("%s: XML %s, want %s", c.flag, got, c.xml)
		}
		if got := pdfSignature(t, pdf); got != c.pdf {
			t.Errorf("%s: PDF %s, want %s", c.flag, got, c.pdf)
		}
	}

	// PDF attachments are signed too; others are kept as sent.
	attachment := renderedPDF(t)
	body, ct := multipartBody(t, formFields(t, invoiceJSON("S-ATT", env.customer.NIF, "")),
		map[string][]byte{"files[0]": attachment, "files[1]": []byte("a;b\n1;2\n")})
	id = created(t, env.post("/documents", env.entity, ct, body))
	doc := data(env.do("GET", "/api/v1/en/apps/documents/"+id, env.as(env.entity, ""), ""))
	signedPDFs := 0
	for _, a := range doc["attachments"].([]any) {
		att := a.(map[string]any)
		file := att["file"].(string)
		content := []byte(env.fetchPublic(file).raw)
		if att["mime_type"] == "application/pdf" && pdfSignature(t, content) == "PAdES" {
			signedPDFs++
		}
	}
	if signedPDFs != 2 { // the rendered visual PDF and the attachment
		t.Fatalf("%d signed PDFs among %v", signedPDFs, doc["attachments"])
	}

	// The XML method: the XML is signed, and the PDF rendered for it on demand too.
	id = created(t, env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "S-UBL", env.customer.NIF))))
	if x, p := xmlSignature(t, env.file(id, "xml")), pdfSignature(t, env.file(id, "pdf")); x != "XAdES-BES" || p != "PAdES" {
		t.Fatalf("XML method: XML %s, PDF %s", x, p)
	}
}

// checkWithIndependentVerifiers runs xmlsec1, xadesjs, pdfsig and qpdf over what the service signed.
func checkWithIndependentVerifiers(t *testing.T, xml, pdf []byte) {
	xmlsec, pdfsig, qpdf := ubltest.Need(t, "xmlsec1"), ubltest.Need(t, "pdfsig"), ubltest.Need(t, "qpdf")
	files := signingtest.WriteSeal(t, issuerSeal().Signer, issuerSeal().Certificate)
	dir := t.TempDir()
	xmlFile, pdfFile := filepath.Join(dir, "signed.xml"), filepath.Join(dir, "signed.pdf")
	os.WriteFile(xmlFile, xml, 0o600)
	os.WriteFile(pdfFile, pdf, 0o600)
	out, err := exec.Command(xmlsec, "--verify", "--id-attr:Id", "http://uri.etsi.org/01903/v1.3.2#:SignedProperties",
		"--trusted-pem", files.CertPEM, "--print-debug", xmlFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SignedInfo References (ok/all): 2/2") {
		t.Fatalf("xmlsec1: %v\n%s", err, out)
	}
	if msg, err := signingtest.Xadesjs(t, "verify", xmlFile); err != nil || msg != "valid" {
		t.Fatalf("xadesjs: %v %s", err, msg)
	}
	out, _ = exec.Command(pdfsig, pdfFile).CombinedOutput()
	if !strings.Contains(string(out), "Signature Validation: Signature is Valid.") || !strings.Contains(string(out), "Total document signed") {
		t.Fatalf("pdfsig:\n%s", out)
	}
	if out, err := exec.Command(qpdf, "--check", pdfFile).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
}

// The service charges one transaction per started MB of the attachments sent when it signs them, not
// for the PDF it renders, and nothing when both signatures are turned off.
func TestSigningChargesAttachmentsSent(t *testing.T) {
	env := newDocEnv(t)
	env.giveSeal(issuerSeal())
	ctx := context.Background()
	five := int64(5)
	env.st.UpdateEntity(ctx, env.entity.ID, store.EntityChanges{Transactions: &five})
	balance := func() int64 {
		e, _ := env.st.EntityByID(ctx, env.entity.ID)
		return e.Transactions
	}
	created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("C1", env.customer.NIF, "")))
	if b := balance(); b != 5 {
		t.Fatalf("rendered PDF charged: balance %d", b)
	}
	csv := bytes.Repeat([]byte("a;b;c\n"), 250_000) // 1.5 MB: two started MB
	body, ct := multipartBody(t, formFields(t, invoiceJSON("C2", env.customer.NIF, "")), map[string][]byte{"files[0]": csv})
	created(t, env.post("/documents", env.entity, ct, body))
	if b := balance(); b != 3 {
		t.Fatalf("balance %d, want 3", b)
	}
	fields := formFields(t, invoiceJSON("C3", env.customer.NIF, ""))
	fields["disable_xml_sign"], fields["disable_pdf_sign"] = "1", "1"
	body, ct = multipartBody(t, fields, map[string][]byte{"files[0]": csv})
	created(t, env.post("/documents", env.entity, ct, body))
	if b := balance(); b != 3 {
		t.Fatalf("charged with signing off: balance %d", b)
	}
}

// A seal outside its validity period signs nothing: the document is refused with e347.
func TestSealOutsideItsValidityIsRefused(t *testing.T) {
	now := time.Now()
	for name, period := range map[string][2]time.Time{
		"expired":       {now.AddDate(-2, 0, 0), now.AddDate(-1, 0, 0)},
		"not yet valid": {now.AddDate(0, 1, 0), now.AddDate(1, 0, 0)},
	} {
		t.Run(name, func(t *testing.T) {
			env := newDocEnv(t)
			seal, err := signing.SelfSignedSeal("Fornecedor", "508025338", period[0], period[1])
			if err != nil {
				t.Fatal(err)
			}
			env.giveSeal(seal)
			expectError(t, env.post("/documents", env.entity, "application/json", invoiceJSON("E1", env.customer.NIF, "")), 400, "seal:e347")
			expectError(t, env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "E2", env.customer.NIF))), 400, "seal:e347")
		})
	}
}

// An issuer that signs by itself: every signature is verified, and what carries none, or a broken one,
// is refused with e217. Signatures made by other tools (xadesjs, openssl) are accepted.
func TestSelfSigningIssuersSignaturesAreVerified(t *testing.T) {
	env := newDocEnv(t)
	yes := true
	env.st.UpdateEntity(context.Background(), env.entity.ID, store.EntityChanges{SignsItself: &yes})
	env.entity, _ = env.st.EntityByID(context.Background(), env.entity.ID)
	seal := issuerSeal()
	now := time.Now()

	// The XML method.
	unsigned := buildXML(t, env, "A1", env.customer.NIF)
	expectError(t, env.post("/documentsUBL", env.entity, "application/xml", string(unsigned)), 400, "document:e217")
	signed, err := signing.SignXML(unsigned, seal, now, signing.XMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(signed, []byte("<cbc:Name>Caderno</cbc:Name>"), []byte("<cbc:Name>Cadernos</cbc:Name>"), 1)
	if bytes.Equal(tampered, signed) {
		t.Fatal("nothing tampered")
	}
	expectError(t, env.post("/documentsUBL", env.entity, "application/xml", string(tampered)), 400, "document:e217")
	stranger, err := signing.SelfSignedSeal("Outra", "500000000", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := base64.StdEncoding.EncodeToString(seal.Certificate.Raw), base64.StdEncoding.EncodeToString(stranger.Certificate.Raw)
	otherCert := bytes.Replace(signed, []byte(ours), []byte(theirs), 1)
	if bytes.Equal(otherCert, signed) {
		t.Fatal("certificate not replaced")
	}
	expectError(t, env.post("/documentsUBL", env.entity, "application/xml", string(otherCert)), 400, "document:e217")
	id := created(t, env.post("/documentsUBL", env.entity, "application/xml", string(signed)))
	if !bytes.Equal(env.file(id, "xml"), signed) {
		t.Fatal("the issuer's signed XML was not kept as sent")
	}

	files := signingtest.WriteSeal(t, seal.Signer, seal.Certificate)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.xml"), filepath.Join(dir, "out.xml")
	os.WriteFile(in, signingtest.WithUBLSignatureSlot(buildXML(t, env, "A2", env.customer.NIF)), 0o600)
	if msg, err := signingtest.Xadesjs(t, "sign", in, files.KeyDER, files.CertDER, out); err != nil {
		t.Fatalf("xadesjs sign: %v %s", err, msg)
	}
	byXadesjs, _ := os.ReadFile(out)
	created(t, env.post("/documentsUBL", env.entity, "application/xml", string(byXadesjs)))
	tampered = bytes.Replace(byXadesjs, []byte("Caderno"), []byte("Cadernos"), 1)
	expectError(t, env.post("/documentsUBL", env.entity, "application/xml", string(tampered)), 400, "document:e217")

	// The data method: the visual PDF must carry a valid signature (PAdES or PKCS#7).
	visual := renderedPDF(t)
	padesPDF, err := signing.SignPDF(visual, seal, now, signing.PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opensslPDF := signingtest.ResignedByOpenSSL(t, padesPDF, files)
	flipped := append([]byte{}, padesPDF...)
	flipped[len(visual)/2] ^= 0x20
	cases := []struct {
		name string
		file []byte
		code string
	}{
		{"unsigned", visual, "document:e217"},
		{"tampered", flipped, "document:e217"},
		{"none", nil, "document:e217"},
		{"PAdES", padesPDF, ""},
		{"PKCS#7 by openssl", opensslPDF, ""},
	}
	for i, c := range cases {
		uploads := map[string][]byte{}
		if c.file != nil {
			uploads["file"] = c.file
		}
		body, ct := multipartBody(t, formFields(t, invoiceJSON("B"+string(rune('1'+i)), env.customer.NIF, "")), uploads)
		r := env.post("/documents", env.entity, ct, body)
		if c.code != "" {
			expectError(t, r, 400, c.code)
			continue
		}
		id := created(t, r)
		if infos, err := signing.VerifyPDF(env.file(id, "pdf")); err != nil || len(infos) != 1 {
			t.Fatalf("%s: stored PDF: %v %+v", c.name, err, infos)
		}
	}
}

// renderedPDF is the unsigned visual PDF the service renders for an invoice.
func renderedPDF(t *testing.T) []byte {
	t.Helper()
	other := newDocEnv(t)
	id := created(t, other.post("/documents", other.entity, "application/json", invoiceJSON("V1", other.customer.NIF, "")))
	return other.file(id, "pdf")
}
