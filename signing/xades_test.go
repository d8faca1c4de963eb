package signing

import (
	"bytes"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"einvoice/signing/signingtest"
	"einvoice/ubl"
	"einvoice/ubl/ubltest"
)

// sampleInvoice is a CIUS-PT invoice of the corpus that the official validator accepts.
func sampleInvoice(t testing.TB) []byte {
	t.Helper()
	dir, err := ubltest.Dir()
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cases/cius-pt/ilink-samples/retencao.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
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

// xmlsec1 verifies both references (the document and SignedProperties) with the certificate chain,
// of an RSA and of an ECDSA seal.
func TestXAdESVerifiedByXmlsec1(t *testing.T) {
	for name, seal := range map[string]*Seal{"RSA": pki().seal, "ECDSA": pki().ecSeal} {
		t.Run(name, func(t *testing.T) { xmlsec1Verifies(t, seal) })
	}
}

func xmlsec1Verifies(t *testing.T, seal *Seal) {
	xmlsec := ubltest.Need(t, "xmlsec1")
	signed, err := SignXML(sampleInvoice(t), seal, time.Now(), XMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca := writeCAPEM(t)
	if out, err := xmlsec1Verify(t, xmlsec, ca, signed); err != nil {
		t.Fatalf("xmlsec1: %v\n%s", err, out)
	}
	tampered := bytes.Replace(signed, []byte(">24.60</cbc:PayableAmount>"), []byte(">24.70</cbc:PayableAmount>"), 1)
	if out, err := xmlsec1Verify(t, xmlsec, ca, tampered); err == nil {
		t.Fatalf("xmlsec1 accepted a tampered document:\n%s", out)
	}
}

// xadesjs verifies what an RSA seal signs (it cannot read an ECDSA key from a certificate: "Cannot get
// Curved name from the ECDSA public key").
func TestXAdESVerifiedByXadesjs(t *testing.T) {
	signed, err := SignXML(sampleInvoice(t), pki().seal, time.Now(), XMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.xml"), filepath.Join(dir, "bad.xml")
	os.WriteFile(good, signed, 0o600)
	os.WriteFile(bad, bytes.Replace(signed, []byte(">24.60</cbc:PayableAmount>"), []byte(">24.70</cbc:PayableAmount>"), 1), 0o600)
	if out, err := signingtest.Xadesjs(t, "verify", good); err != nil || out != "valid" {
		t.Fatalf("xadesjs on ours: %v %s", err, out)
	}
	if out, err := signingtest.Xadesjs(t, "verify", bad); err == nil {
		t.Fatalf("xadesjs accepted a tampered document: %s", out)
	}
}

// A document xadesjs signed (its signature placed in the UBL extension) verifies with ours, and passes
// the schema and the rules; tampered, it does not verify.
func TestXadesjsSignaturesVerify(t *testing.T) {
	doc := signingtest.WithUBLSignatureSlot(sampleInvoice(t))
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.xml"), filepath.Join(dir, "out.xml")
	os.WriteFile(in, doc, 0o600)
	files := signingtest.WriteSeal(t, pki().seal.Signer, pki().seal.Certificate)
	if msg, err := signingtest.Xadesjs(t, "sign", in, files.KeyDER, files.CertDER, out); err != nil {
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

// Every document of the conformance corpus (every twentieth, and the unusual ones, without
// EINVOICE_CONFORMANCE=1) gets a signature that our verifier (goxmldsig's canonicalisation,
// independent of libxml2's) accepts, with its own bytes unchanged around it; a sample of them,
// including documents in ISO-8859-1, with processing instructions before the document element and
// with UBL extensions of their own, also passes xmlsec1.
func TestCorpusDocumentsSignAndVerify(t *testing.T) {
	dir, err := ubltest.Dir()
	if err != nil {
		ubltest.Missing(t, err.Error())
	}
	var files []string
	var docs [][]byte
	err = filepath.WalkDir(filepath.Join(dir, "cases"), func(path string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".xml") {
			return err
		}
		doc, err := os.ReadFile(path)
		files, docs = append(files, path), append(docs, doc)
		return err
	})
	if err != nil || len(files) < 1000 {
		t.Fatalf("%d corpus documents: %v", len(files), err)
	}
	xmlsec := ubltest.Need(t, "xmlsec1")
	ca := writeCAPEM(t)
	firstModel := slices.IndexFunc(docs, func(doc []byte) bool { return bytes.Contains(doc, []byte("<?xml-model")) })
	if firstModel < 0 {
		t.Fatal("no corpus document has a processing instruction before its document element")
	}
	signedCount, sampled := 0, 0
	for i, doc := range docs {
		f := files[i]
		unusual := bytes.Contains(doc, []byte("UBLExtensions")) || bytes.Contains(doc, []byte(`encoding="ISO`)) || i == firstModel
		if !ubltest.Conformance() && i%20 != 0 && !unusual {
			continue
		}
		signed, err := SignXML(doc, pki().seal, time.Now(), XMLOptions{})
		if err != nil {
			t.Errorf("%s: not signed: %v", f, err)
			continue
		}
		signedCount++
		if infos, err := VerifyXML(signed); err != nil || len(infos) != 1 {
			t.Errorf("%s: %v %v", f, infos, err)
			continue
		}
		// One insertion: the bytes before the first difference, and all after the inserted ones, are the document's.
		at := 0
		for at < len(doc) && signed[at] == doc[at] {
			at++
		}
		if !bytes.Equal(signed[at+len(signed)-len(doc):], doc[at:]) {
			t.Errorf("%s: the document's own bytes changed", f)
		}
		if i%400 == 0 || unusual {
			sampled++
			if out, err := xmlsec1Verify(t, xmlsec, ca, signed); err != nil {
				t.Errorf("%s: xmlsec1: %v\n%s", f, err, out)
			}
		}
	}
	t.Logf("%d of %d corpus documents signed and verified, %d of them by xmlsec1 too", signedCount, len(files), sampled)
}

// xmlsec1Verify has xmlsec1 verify a signed document with the CA certificate in the file ca, and
// fails unless both references (the document and SignedProperties) verify.
func xmlsec1Verify(t *testing.T, xmlsec, ca string, signed []byte) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "signed.xml")
	if err := os.WriteFile(path, signed, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmlsec, "--verify", "--id-attr:Id", "http://uri.etsi.org/01903/v1.3.2#:SignedProperties",
		"--trusted-pem", ca, "--print-debug", path).CombinedOutput()
	if err == nil && !strings.Contains(string(out), "SignedInfo References (ok/all): 2/2") {
		err = errors.New("not both references verified")
	}
	return string(out), err
}

// A seal whose issuer's name has characters to escape and characters past ASCII signs documents in
// UTF-8 and in ISO-8859-1 alike, and xmlsec1 and our verifier accept both.
func TestXAdESWithNamesPastASCII(t *testing.T) {
	xmlsec := ubltest.Need(t, "xmlsec1")
	now := time.Now()
	seal, err := SelfSignedSeal("Construções Ção & <Filhos>, Lda.", "508025338", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	utf8Doc := sampleInvoice(t)
	latin1, err := charmap.ISO8859_1.NewEncoder().Bytes(bytes.Replace(utf8Doc, []byte(`encoding="utf-8"`), []byte(`encoding="ISO-8859-1"`), 1))
	if err != nil || !bytes.Contains(latin1, []byte(`encoding="ISO-8859-1"`)) {
		t.Fatalf("the sample in ISO-8859-1: %v", err)
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: seal.Certificate.Raw}), 0o600)
	for name, doc := range map[string][]byte{"UTF-8": utf8Doc, "ISO-8859-1": latin1} {
		signed, err := SignXML(doc, seal, now, XMLOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Contains(signed, []byte(`Constru&#xE7;&#xF5;es &#xC7;&#xE3;o &amp; \&lt;Filhos\&gt;`)) {
			t.Fatalf("%s: the issuer's name is not escaped", name)
		}
		if infos, err := VerifyXML(signed); err != nil || len(infos) != 1 {
			t.Fatalf("%s: our verifier: %v %v", name, infos, err)
		}
		if out, err := xmlsec1Verify(t, xmlsec, ca, signed); err != nil {
			t.Fatalf("%s: xmlsec1: %v\n%s", name, err, out)
		}
	}
}
