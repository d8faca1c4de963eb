package signing

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"os"
	"testing"
)

// remoteSigner stands for a key held elsewhere: a crypto.Signer that is not an *rsa.PrivateKey.
type remoteSigner struct{ crypto.Signer }

// TestRSASealsSignWithOpenSSL checks that an RSA seal signs through OpenSSL where libcrypto.so.3 loads
// (.ci/run's machine has it), with the very signatures Go makes, and that other keys sign through
// their own crypto.Signer.
func TestRSASealsSignWithOpenSSL(t *testing.T) {
	seal := pki().seal
	if seal.libcrypto == nil {
		if os.Getenv("CI") != "" {
			t.Fatal("libcrypto.so.3 did not load (.ci/run installs openssl)")
		}
		t.Skip("libcrypto.so.3 is not installed here: Go's crypto/rsa signs")
	}
	key := seal.Signer.(*rsa.PrivateKey)
	for i := range 20 {
		digest := sha256.Sum256([]byte{byte(i)})
		got, err := seal.sign(digest[:])
		if err != nil {
			t.Fatal(err)
		}
		want, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, digest[:])
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("digest %d: OpenSSL's signature differs from Go's (%v)", i, err)
		}
	}
	if pki().ecSeal.libcrypto != nil {
		t.Fatal("an ECDSA seal got an OpenSSL RSA key")
	}
	remote, err := NewSeal(remoteSigner{key}, []*x509.Certificate{seal.Certificate})
	if err != nil {
		t.Fatal(err)
	}
	if remote.libcrypto != nil {
		t.Fatal("a key held elsewhere got an OpenSSL copy")
	}
	digest := sha256.Sum256([]byte("remote"))
	sig, err := remote.sign(digest[:])
	if err != nil || rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, digest[:], sig) != nil {
		t.Fatalf("the remote key's signature: %v", err)
	}
}

// BenchmarkSealSigns is one RSA-2048 signature of a digest, by OpenSSL and by Go's crypto/rsa.
func BenchmarkSealSigns(b *testing.B) {
	seal := pki().seal
	if seal.libcrypto == nil {
		b.Skip("libcrypto.so.3 is not installed")
	}
	digest := sha256.Sum256([]byte("bench"))
	for name, s := range map[string]*Seal{"OpenSSL": seal, "Go": {Signer: seal.Signer, Certificate: seal.Certificate}} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.sign(digest[:]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
