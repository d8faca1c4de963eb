package signing

import (
	"bytes"
	"crypto/x509"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"einvoice/internal/corpus"
	"einvoice/ubl"
)

// sampleInvoice is a CIUS-PT invoice of the corpus that the official validator accepts.
func sampleInvoice(t testing.TB) []byte {
	t.Helper()
	dir, err := corpus.Dir()
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cases/cius-pt/ilink-samples/retencao.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// needTool finds an external verifier; in CI its absence is a failure, elsewhere the test is skipped.
func needTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (.ci/run installs it)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return path
}

func TestXAdESSignAndVerify(t *testing.T) {
	for name, seal := range map[string]*Seal{"RSA": pki().seal, "ECDSA": pki().ecSeal} {
		t.Run(name, func(t *testing.T) {
			signed, err := SignXML(sampleInvoice(t), seal, time.Now(), XMLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			infos, err := VerifyXML(signed)
			if err != nil || len(infos) != 1 || infos[0].Kind != "XAdES-BES" || !strings.Contains(infos[0].Signer, "Selo") {
				t.Fatalf("verify: %v %+v", err, infos)
			}
			// Still a valid UBL document that the rules accept.
			if r := ubl.Validate(signed, ubl.Auto, "en"); r.Rejected() {
				first, _ := r.FirstFatal()
				t.Fatalf("signed document refused: %v %s", r.Fatal, first.Message)
			}
		})
	}
}

func TestXAdESRejectsTampering(t *testing.T) {
	signed, err := SignXML(sampleInvoice(t), pki().seal, time.Now(), XMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := SignXML(sampleInvoice(t), pki().ecSeal, time.Now(), XMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	otherCert := between(string(other), "<ds:X509Certificate>", "</ds:X509Certificate>")
	cases := map[string]string{
		"an amount":        strings.Replace(string(signed), ">24.60</cbc:PayableAmount>", ">24.70</cbc:PayableAmount>", 1),
		"the signing time": strings.Replace(string(signed), "<xades:SigningTime>2", "<xades:SigningTime>1", 1),
		"the certificate":  strings.Replace(string(signed), between(string(signed), "<ds:X509Certificate>", "</ds:X509Certificate>"), otherCert, 1),
		"the value":        strings.Replace(string(signed), "<ds:SignatureValue Id", "<ds:SignatureValue x=\"1\" Id", 1),
	}
	cases["the value"] = tamperSignatureValue(string(signed))
	for name, doc := range cases {
		if doc == string(signed) {
			t.Fatalf("%s: nothing changed", name)
		}
		if _, err := VerifyXML([]byte(doc)); !errors.Is(err, ErrInvalidSignature) {
			t.Errorf("tampered %s: %v", name, err)
		}
	}
	if _, err := VerifyXML(sampleInvoice(t)); !errors.Is(err, ErrNoSignature) {
		t.Errorf("unsigned: %v", err)
	}
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	j := strings.Index(s[i+len(a):], b)
	return s[i+len(a) : i+len(a)+j]
}

func tamperSignatureValue(s string) string {
	v := between(s, "\">", "</ds:SignatureValue>")
	i := strings.Index(s, "</ds:SignatureValue>")
	flipped := []byte(s[i-len(v) : i])
	if flipped[10] == 'A' {
		flipped[10] = 'B'
	} else {
		flipped[10] = 'A'
	}
	return s[:i-len(v)] + string(flipped) + s[i:]
}

// xmlsec1 verifies both references (the document and SignedProperties) with the certificate chain.
func TestXAdESVerifiedByXmlsec1(t *testing.T) {
	xmlsec := needTool(t, "xmlsec1")
	signed, err := SignXML(sampleInvoice(t), pki().seal, time.Now(), XMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "signed.xml")
	os.WriteFile(file, signed, 0o600)
	run := func(path string) (string, error) {
		out, err := exec.Command(xmlsec, "--verify", "--id-attr:Id", "http://uri.etsi.org/01903/v1.3.2#:SignedProperties",
			"--trusted-pem", writeCAPEM(t), "--print-debug", path).CombinedOutput()
		return string(out), err
	}
	out, err := run(file)
	if err != nil || !strings.HasPrefix(strings.TrimSpace(out), "OK") || !strings.Contains(out, "SignedInfo References (ok/all): 2/2") {
		t.Fatalf("xmlsec1: %v\n%s", err, out)
	}
	tampered := filepath.Join(dir, "tampered.xml")
	os.WriteFile(tampered, bytes.Replace(signed, []byte(">24.60</cbc:PayableAmount>"), []byte(">24.70</cbc:PayableAmount>"), 1), 0o600)
	if out, err := run(tampered); err == nil {
		t.Fatalf("xmlsec1 accepted a tampered document:\n%s", out)
	}
}

// xadesjs runs the independent checker in testdata/xadesjs (npm ci there first; .ci/run does).
func xadesjs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	node := needTool(t, "node")
	if _, err := os.Stat("testdata/xadesjs/node_modules/xadesjs"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xadesjs is not installed: npm ci --prefix signing/testdata/xadesjs")
		}
		t.Skip("xadesjs is not installed: npm ci --prefix signing/testdata/xadesjs")
	}
	out, err := exec.Command(node, append([]string{"testdata/xadesjs/check.mjs"}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func TestXAdESVerifiedByXadesjs(t *testing.T) {
	signed, err := SignXML(sampleInvoice(t), pki().seal, time.Now(), XMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.xml"), filepath.Join(dir, "bad.xml")
	os.WriteFile(good, signed, 0o600)
	os.WriteFile(bad, bytes.Replace(signed, []byte(">24.60</cbc:PayableAmount>"), []byte(">24.70</cbc:PayableAmount>"), 1), 0o600)
	if out, err := xadesjs(t, "verify", good); err != nil || out != "valid" {
		t.Fatalf("xadesjs on ours: %v %s", err, out)
	}
	if out, err := xadesjs(t, "verify", bad); err == nil {
		t.Fatalf("xadesjs accepted a tampered document: %s", out)
	}
}

// A document xadesjs signed (its signature placed in the UBL extension) verifies with ours, and passes
// the schema and the rules; tampered, it does not verify.
func TestXadesjsSignaturesVerify(t *testing.T) {
	// xadesjs canonicalises SignedProperties inclusively, so the namespaces in scope where the signature
	// ends up must be those it saw when signing: the extension's are declared on the document element.
	placeholder := `<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionURI>urn:oasis:names:specification:ubl:dsig:enveloped:xades</ext:ExtensionURI>` +
		`<ext:ExtensionContent><sig:UBLDocumentSignatures><sac:SignatureInformation/></sig:UBLDocumentSignatures></ext:ExtensionContent>` +
		`</ext:UBLExtension></ext:UBLExtensions>`
	doc := strings.Replace(string(sampleInvoice(t)), "<cbc:CustomizationID>", placeholder+"<cbc:CustomizationID>", 1)
	doc = strings.Replace(doc, `<Invoice xmlns=`, `<Invoice xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2" `+
		`xmlns:sig="urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2" `+
		`xmlns:sac="urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2" xmlns=`, 1)
	dir := t.TempDir()
	in, key, cert, out := filepath.Join(dir, "in.xml"), filepath.Join(dir, "key.pk8"), filepath.Join(dir, "cert.der"), filepath.Join(dir, "out.xml")
	os.WriteFile(in, []byte(doc), 0o600)
	pk8, err := x509.MarshalPKCS8PrivateKey(pki().seal.Signer)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(key, pk8, 0o600)
	os.WriteFile(cert, pki().seal.Certificate.Raw, 0o600)
	if msg, err := xadesjs(t, "sign", in, key, cert, out); err != nil {
		t.Fatalf("xadesjs sign: %v %s", err, msg)
	}
	signed, _ := os.ReadFile(out)
	infos, err := VerifyXML(signed)
	if err != nil || infos[0].Kind != "XAdES-BES" {
		t.Fatalf("ours on xadesjs's: %v %+v", err, infos)
	}
	if r := ubl.Validate(signed, ubl.Auto, "en"); r.Rejected() {
		t.Fatalf("xadesjs-signed document refused: %v %v", r.Fatal, r.Findings[:1])
	}
	if _, err := VerifyXML(bytes.Replace(signed, []byte(">24.60</cbc:PayableAmount>"), []byte(">24.70</cbc:PayableAmount>"), 1)); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("tampered xadesjs document: %v", err)
	}
}
