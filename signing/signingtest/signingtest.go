// Package signingtest runs the independent signers and verifiers the tests of signatures compare
// against, and makes signed files with them: xadesjs (on node) signs and verifies XAdES, openssl cms
// re-signs a PDF the older PKCS#7 way, and a seal's key and certificate are written as the tools read
// them (xmlsec1, pdfsig and qpdf the tests run themselves, found by ubltest.Need). Nothing in the
// product uses it. In CI (CI set) a missing tool fails the test; elsewhere the test is skipped.
package signingtest

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"einvoice/ubl/ubltest"
)

// moduleRoot is the folder of go.mod, found from the working directory.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Xadesjs runs signing/testdata/xadesjs/check.mjs (`npm ci --prefix signing/testdata/xadesjs` first;
// .ci/run does): "verify FILE" or "sign IN KEY.pk8 CERT.der OUT".
func Xadesjs(t testing.TB, args ...string) (string, error) {
	t.Helper()
	node := ubltest.Need(t, "node")
	dir := filepath.Join(moduleRoot(t), "signing", "testdata", "xadesjs")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "xadesjs")); err != nil {
		ubltest.Missing(t, "xadesjs is not installed: npm ci --prefix signing/testdata/xadesjs")
	}
	out, err := exec.Command(node, append([]string{filepath.Join(dir, "check.mjs")}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// SealFiles writes a seal's key (PKCS#8, DER and PEM) and certificate (DER and PEM) for the tools.
type SealFiles struct{ KeyDER, KeyPEM, CertDER, CertPEM string }

// WriteSeal writes a seal's key and certificate into a temporary folder.
func WriteSeal(t testing.TB, signer crypto.Signer, cert *x509.Certificate) SealFiles {
	t.Helper()
	key, err := x509.MarshalPKCS8PrivateKey(signer)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := SealFiles{filepath.Join(dir, "key.pk8"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "cert.der"), filepath.Join(dir, "cert.pem")}
	write := func(path string, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(f.KeyDER, key)
	write(f.KeyPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}))
	write(f.CertDER, cert.Raw)
	write(f.CertPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
	return f
}

var byteRange = regexp.MustCompile(`/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]`)

// ResignedByOpenSSL turns the last PAdES signature of a PDF (its field and byte range laid out by
// signing.SignPDF) into the older kind: a PKCS#7 detached signature that openssl cms makes with the
// seal's files (signing time included, /SubFilter /adbe.pkcs7.detached).
func ResignedByOpenSSL(t testing.TB, signedPDF []byte, seal SealFiles) []byte {
	t.Helper()
	openssl := ubltest.Need(t, "openssl")
	// Same length, so the byte range stays right.
	laidOut := bytes.Replace(signedPDF, []byte("/SubFilter /ETSI.CAdES.detached"), []byte("/SubFilter /adbe.pkcs7.detached"), 1)
	all := byteRange.FindAllSubmatch(laidOut, -1)
	if len(all) == 0 {
		t.Fatal("no /ByteRange")
	}
	var r [4]int
	for i := range r {
		r[i], _ = strconv.Atoi(string(all[len(all)-1][i+1]))
	}
	dir := t.TempDir()
	content, out := filepath.Join(dir, "content.bin"), filepath.Join(dir, "sig.der")
	os.WriteFile(content, append(append([]byte{}, laidOut[r[0]:r[0]+r[1]]...), laidOut[r[2]:r[2]+r[3]]...), 0o600)
	if msg, err := exec.Command(openssl, "cms", "-sign", "-binary", "-in", content, "-signer", seal.CertPEM, "-inkey", seal.KeyPEM,
		"-md", "sha256", "-outform", "DER", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("openssl cms -sign: %v\n%s", err, msg)
	}
	der, _ := os.ReadFile(out)
	hexSig := hex.EncodeToString(der)
	slot := laidOut[r[1]+1 : r[2]-1] // between < and >
	if len(hexSig) > len(slot) {
		t.Fatalf("openssl's signature (%d hex digits) does not fit the %d reserved", len(hexSig), len(slot))
	}
	copy(slot, hexSig)
	for i := len(hexSig); i < len(slot); i++ {
		slot[i] = '0'
	}
	return laidOut
}

// WithUBLSignatureSlot gives a UBL document the empty place its signature goes in
// (ext:UBLExtensions/…/sac:SignatureInformation), for external signers such as check.mjs sign. xadesjs
// canonicalises SignedProperties inclusively, so the namespaces in scope where the signature ends up
// must be those it saw when signing: the extension's are declared on the document element.
func WithUBLSignatureSlot(doc []byte) []byte {
	const slot = `<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionURI>urn:oasis:names:specification:ubl:dsig:enveloped:xades</ext:ExtensionURI>` +
		`<ext:ExtensionContent><sig:UBLDocumentSignatures><sac:SignatureInformation/></sig:UBLDocumentSignatures></ext:ExtensionContent>` +
		`</ext:UBLExtension></ext:UBLExtensions>`
	const namespaces = `xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2" ` +
		`xmlns:sig="urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2" ` +
		`xmlns:sac="urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2" `
	s := strings.Replace(string(doc), "<cbc:CustomizationID>", slot+"<cbc:CustomizationID>", 1)
	for _, root := range []string{"<Invoice ", "<CreditNote ", "<Order "} {
		s = strings.Replace(s, root, root+namespaces, 1)
	}
	return []byte(s)
}
