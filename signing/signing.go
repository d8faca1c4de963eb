// Package signing makes and checks the signatures of electronic invoices: an entity's seal (a key and
// its certificate chain, from a PKCS#12 file or a remote provider behind crypto.Signer), XAdES-BES
// enveloped signatures of UBL documents, PAdES (CAdES-detached CMS) signatures of PDFs as incremental
// updates, and the verification of the XMLDSig, XAdES, PAdES and PKCS#7 signatures documents arrive with.
// It knows nothing of HTTP or the store.
package signing

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/golang-fips/openssl/v2"
	"software.sslmate.com/src/go-pkcs12"
)

// Seal is what signs for an entity: a key, which may live elsewhere (any crypto.Signer: a local key or
// a remote qualified signing provider), and the certificate of its public key with the chain above it.
type Seal struct {
	Signer      crypto.Signer
	Certificate *x509.Certificate
	Chain       []*x509.Certificate // intermediates, leaf excluded

	libcrypto *openssl.PrivateKeyRSA // OpenSSL's copy of an RSA key (libcrypto.go); nil: Signer signs
}

// Errors of seals.
var (
	ErrSealExpired     = errors.New("the seal's certificate has expired")
	ErrSealNotYetValid = errors.New("the seal's certificate is not valid yet")
	ErrKeyMismatch     = errors.New("the seal's key does not match its certificate")
	ErrUnsupportedKey  = errors.New("the seal's key is neither RSA nor ECDSA")
)

// LoadPKCS12 reads a PKCS#12 file: its private key, its certificate and the chain.
func LoadPKCS12(data []byte, password string) (*Seal, error) {
	key, cert, chain, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return nil, fmt.Errorf("reading the PKCS#12 file: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, ErrUnsupportedKey
	}
	return newSeal(signer, cert, chain)
}

// NewSeal makes a seal of a key and its certificates (leaf first).
func NewSeal(signer crypto.Signer, certs []*x509.Certificate) (*Seal, error) {
	if len(certs) == 0 {
		return nil, errors.New("a seal needs its certificate")
	}
	return newSeal(signer, certs[0], certs[1:])
}

// newSeal checks that the key is the certificate's and readies OpenSSL's copy of an RSA key.
func newSeal(signer crypto.Signer, cert *x509.Certificate, chain []*x509.Certificate) (*Seal, error) {
	s := &Seal{Signer: signer, Certificate: cert, Chain: chain}
	if err := s.check(); err != nil {
		return nil, err
	}
	s.libcrypto = libcryptoKey(signer)
	return s, nil
}

// check refuses a key of another kind or one that is not the certificate's.
func (s *Seal) check() error {
	switch pub := s.Signer.Public().(type) {
	case *rsa.PublicKey:
		if c, ok := s.Certificate.PublicKey.(*rsa.PublicKey); !ok || !c.Equal(pub) {
			return ErrKeyMismatch
		}
	case *ecdsa.PublicKey:
		if c, ok := s.Certificate.PublicKey.(*ecdsa.PublicKey); !ok || !c.Equal(pub) {
			return ErrKeyMismatch
		}
	default:
		return ErrUnsupportedKey
	}
	return nil
}

// ValidAt refuses to sign with a certificate outside its validity period.
func (s *Seal) ValidAt(t time.Time) error {
	switch {
	case t.Before(s.Certificate.NotBefore):
		return fmt.Errorf("%w (from %s)", ErrSealNotYetValid, s.Certificate.NotBefore.UTC().Format(time.DateOnly))
	case t.After(s.Certificate.NotAfter):
		return fmt.Errorf("%w (on %s)", ErrSealExpired, s.Certificate.NotAfter.UTC().Format(time.DateOnly))
	}
	return nil
}

// certificates is the leaf and the chain.
func (s *Seal) certificates() []*x509.Certificate {
	return append([]*x509.Certificate{s.Certificate}, s.Chain...)
}

// sign signs a SHA-256 digest: PKCS#1 v1.5 for RSA, ASN.1 (r, s) for ECDSA.
func (s *Seal) sign(digest []byte) ([]byte, error) {
	if s.libcrypto != nil {
		return openssl.SignRSAPKCS1v15(s.libcrypto, crypto.SHA256, digest)
	}
	return s.Signer.Sign(nil, digest, crypto.SHA256)
}

// isECDSA tells which signature algorithm the seal uses.
func (s *Seal) isECDSA() bool {
	_, ok := s.Signer.Public().(*ecdsa.PublicKey)
	return ok
}

// SignatureInfo describes one verified signature.
type SignatureInfo struct {
	Kind    string `json:"kind"`   // XAdES-BES, XMLDSig, PAdES, PKCS#7
	Signer  string `json:"signer"` // the certificate's subject
	Issuer  string `json:"issuer"`
	Serial  string `json:"serial"`
	Covered string `json:"covered"` // what it covers: the whole document, or a byte range ending before the end
}

// ErrInvalidSignature is a signature that does not verify; the wrapping error says why.
var ErrInvalidSignature = errors.New("the signature is not valid")

// ErrNoSignature is a document that carries no signature.
var ErrNoSignature = errors.New("the document carries no signature")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidSignature, fmt.Sprintf(format, args...))
}

// ParseSeal reads a seal kept as a PKCS#8 key and DER certificates (leaf first).
func ParseSeal(pkcs8 []byte, certs [][]byte) (*Seal, error) {
	key, err := x509.ParsePKCS8PrivateKey(pkcs8)
	if err != nil {
		return nil, fmt.Errorf("reading the seal's key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, ErrUnsupportedKey
	}
	var chain []*x509.Certificate
	for _, der := range certs {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("reading the seal's certificates: %w", err)
		}
		chain = append(chain, c)
	}
	return NewSeal(signer, chain)
}

// Export writes a seal's key as PKCS#8 and its certificates as DER (leaf first), to be kept.
func (s *Seal) Export() ([]byte, [][]byte, error) {
	key, err := x509.MarshalPKCS8PrivateKey(s.Signer)
	if err != nil {
		return nil, nil, fmt.Errorf("the seal's key cannot be kept: %w", err)
	}
	var certs [][]byte
	for _, c := range s.certificates() {
		certs = append(certs, c.Raw)
	}
	return key, certs, nil
}

// oidOrganizationIdentifier is the attribute an electronic seal's certificate names its organisation
// by (ETSI EN 319 412-1: VATPT-<NIF>).
var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// SelfSignedSeal makes a seal whose certificate signs itself, valid between the given times, for demo and
// test installations: signatures made with it verify but no one trusts them as qualified.
func SelfSignedSeal(organisation, nif string, notBefore, notAfter time.Time) (*Seal, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{CommonName: organisation + " (demo seal)", Organization: []string{organisation}, Country: []string{"PT"},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "VATPT-" + nif}}},
		NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return NewSeal(key, []*x509.Certificate{cert})
}

// OrganisationID is the organisation the seal's certificate names in the ETSI EN 319 412-1 form
// (VATPT-508025338, NTRPT-…): its organizationIdentifier, or a subject serial number of that form;
// empty when it names none.
func (s *Seal) OrganisationID() string {
	for _, n := range s.Certificate.Subject.Names {
		if n.Type.Equal(oidOrganizationIdentifier) {
			if v, ok := n.Value.(string); ok {
				return v
			}
		}
	}
	if sn := s.Certificate.Subject.SerialNumber; strings.HasPrefix(sn, "VAT") || strings.HasPrefix(sn, "NTR") {
		return sn
	}
	return ""
}

// DisplayName is a distinguished name as people read it: RFC 4514, with the organizationIdentifier of
// seal certificates by name (Go writes attributes it does not know as hexadecimal BER).
func DisplayName(n pkix.Name) string {
	s := n.String()
	for _, a := range n.Names {
		v, ok := a.Value.(string)
		if !ok || !a.Type.Equal(oidOrganizationIdentifier) {
			continue
		}
		if der, err := asn1.Marshal(v); err == nil {
			s = strings.Replace(s, "2.5.4.97=#"+hex.EncodeToString(der), "organizationIdentifier="+v, 1)
		}
	}
	return s
}
