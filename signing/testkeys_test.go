package signing

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testPKI is a CA and a seal it issued, made once per test run (no key is committed to the project).
type testPKI struct {
	ca     *x509.Certificate
	caKey  crypto.Signer
	seal   *Seal
	ecSeal *Seal
}

var pki = sync.OnceValue(func() *testPKI {
	caKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "einvoice test CA", Country: []string{"PT"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(key crypto.Signer, serial int64, name string) *Seal {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name, Organization: []string{"Fornecedor Exemplo, Lda."},
			Country: []string{"PT"}, SerialNumber: "VATPT-508025338"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment}
		der, _ := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
		cert, _ := x509.ParseCertificate(der)
		s, err := NewSeal(key, []*x509.Certificate{cert, ca})
		if err != nil {
			panic(err)
		}
		return s
	}
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	return &testPKI{ca: ca, caKey: caKey, seal: issue(rsaKey, 2, "Selo Fornecedor Exemplo"), ecSeal: issue(ecKey, 3, "Selo EC")}
})

// writePEM writes the CA certificate (and, for tools that need them, the seal's key and certificate).
func writeCAPEM(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pki().ca.Raw}), 0o600)
	return path
}
