package signing

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"sort"
)

// CMS (RFC 5652) SignedData with detached content, as PAdES (ETSI.CAdES.detached) and the older
// adbe.pkcs7.detached signatures carry it. Signing writes the attributes PAdES baseline B-B asks for —
// content type, message digest and the ESS signing-certificate-v2 — and no signing time (PAdES puts the
// time in the signature dictionary). Verification accepts any digest and RSA (PKCS#1 v1.5 or PSS) or
// ECDSA signature an incoming document may carry.

var (
	oidData                  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}
	oidSignedData            = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	oidAttrContentType       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidAttrMessageDigest     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	oidAttrSigningTime       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 5}
	oidAttrSigningCertV2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}
	oidSHA1                  = asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}
	oidSHA256                = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidSHA384                = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}
	oidSHA512                = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}
	oidRSAPSS                = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}
	oidSHA1WithRSA           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 5}
	oidSHA256WithRSA         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}
	oidSHA384WithRSA         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 12}
	oidSHA512WithRSA         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 13}
	oidECDSAWithSHA1         = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 1}
	oidECDSAWithSHA256       = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
	oidECDSAWithSHA384       = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 3}
	oidECDSAWithSHA512       = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 4}
	digestHashes             = map[string]crypto.Hash{oidSHA1.String(): crypto.SHA1, oidSHA256.String(): crypto.SHA256, oidSHA384.String(): crypto.SHA384, oidSHA512.String(): crypto.SHA512}
	signatureAlgorithmHashes = map[string]crypto.Hash{
		oidSHA1WithRSA.String(): crypto.SHA1, oidSHA256WithRSA.String(): crypto.SHA256, oidSHA384WithRSA.String(): crypto.SHA384,
		oidSHA512WithRSA.String(): crypto.SHA512, oidECDSAWithSHA1.String(): crypto.SHA1, oidECDSAWithSHA256.String(): crypto.SHA256,
		oidECDSAWithSHA384.String(): crypto.SHA384, oidECDSAWithSHA512.String(): crypto.SHA512,
	}
)

type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"explicit,optional,tag:0"`
}

type signedData struct {
	Version          int
	DigestAlgorithms []pkix.AlgorithmIdentifier `asn1:"set"`
	EncapContentInfo encapContentInfo
	Certificates     asn1.RawValue `asn1:"optional,tag:0"`
	CRLs             asn1.RawValue `asn1:"optional,tag:1"`
	SignerInfos      []signerInfo  `asn1:"set"`
}

type encapContentInfo struct {
	EContentType asn1.ObjectIdentifier
	EContent     asn1.RawValue `asn1:"explicit,optional,tag:0"`
}

type signerInfo struct {
	Version            int
	SID                asn1.RawValue
	DigestAlgorithm    pkix.AlgorithmIdentifier
	SignedAttrs        asn1.RawValue `asn1:"optional,tag:0"`
	SignatureAlgorithm pkix.AlgorithmIdentifier
	Signature          []byte
	UnsignedAttrs      asn1.RawValue `asn1:"optional,tag:1"`
}

type issuerAndSerial struct {
	Issuer asn1.RawValue
	Serial *big.Int
}

type attribute struct {
	Type   asn1.ObjectIdentifier
	Values asn1.RawValue // the SET of values, raw
}

type essCertIDv2 struct {
	CertHash     []byte
	IssuerSerial issuerSerial
}

type issuerSerial struct {
	Issuer []asn1.RawValue // GeneralNames: one directoryName
	Serial *big.Int
}

// signCMS makes a detached CMS SignedData over digest (the SHA-256 of the signed bytes).
func signCMS(seal *Seal, digest []byte) ([]byte, error) {
	cert := seal.Certificate
	certHash := sha256.Sum256(cert.Raw)
	dirName, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 4, IsCompound: true, Bytes: cert.RawIssuer})
	if err != nil {
		return nil, err
	}
	signingCert, err := asn1.Marshal(struct{ Certs []essCertIDv2 }{[]essCertIDv2{{
		CertHash: certHash[:], IssuerSerial: issuerSerial{Issuer: []asn1.RawValue{{FullBytes: dirName}}, Serial: cert.SerialNumber},
	}}})
	if err != nil {
		return nil, err
	}
	contentType, _ := asn1.Marshal(oidData)
	messageDigest, _ := asn1.Marshal(digest)
	attrs, err := derSet(
		attrDER(oidAttrContentType, contentType),
		attrDER(oidAttrMessageDigest, messageDigest),
		attrDER(oidAttrSigningCertV2, signingCert),
	)
	if err != nil {
		return nil, err
	}
	attrsDigest := sha256.Sum256(attrs) // the signature covers the attributes, as a SET
	signature, err := seal.sign(attrsDigest[:])
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	sigAlg := pkix.AlgorithmIdentifier{Algorithm: oidSHA256WithRSA, Parameters: asn1.NullRawValue}
	if seal.isECDSA() {
		sigAlg = pkix.AlgorithmIdentifier{Algorithm: oidECDSAWithSHA256}
	}
	sid, err := asn1.Marshal(issuerAndSerial{Issuer: asn1.RawValue{FullBytes: cert.RawIssuer}, Serial: cert.SerialNumber})
	if err != nil {
		return nil, err
	}
	var certs []byte
	for _, c := range seal.certificates() {
		certs = append(certs, c.Raw...)
	}
	sd := signedData{
		Version:          1,
		DigestAlgorithms: []pkix.AlgorithmIdentifier{{Algorithm: oidSHA256}},
		EncapContentInfo: encapContentInfo{EContentType: oidData},
		Certificates:     asn1.RawValue{FullBytes: tagged(0xA0, certs)},
		SignerInfos: []signerInfo{{
			Version:            1,
			SID:                asn1.RawValue{FullBytes: sid},
			DigestAlgorithm:    pkix.AlgorithmIdentifier{Algorithm: oidSHA256},
			SignedAttrs:        asn1.RawValue{FullBytes: tagged(0xA0, attrs[headerLen(attrs):])}, // [0] IMPLICIT
			SignatureAlgorithm: sigAlg,
			Signature:          signature,
		}},
	}
	inner, err := asn1.Marshal(sd)
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(struct {
		ContentType asn1.ObjectIdentifier
		Content     asn1.RawValue // [0] EXPLICIT, written out: a RawValue with FullBytes ignores tag parameters
	}{oidSignedData, asn1.RawValue{FullBytes: tagged(0xA0, inner)}})
}

// attrDER is one attribute with one value.
func attrDER(oid asn1.ObjectIdentifier, value []byte) []byte {
	b, _ := asn1.Marshal(attribute{Type: oid, Values: asn1.RawValue{FullBytes: tagged(0x31, value)}})
	return b
}

// derSet is a DER SET OF the encoded elements: sorted, as DER requires.
func derSet(elems ...[]byte) ([]byte, error) {
	sort.Slice(elems, func(i, j int) bool { return bytes.Compare(elems[i], elems[j]) < 0 })
	return tagged(0x31, bytes.Join(elems, nil)), nil
}

// tagged wraps content in a DER element with the tag octet.
func tagged(tag byte, content []byte) []byte {
	return append(append([]byte{tag}, derLength(len(content))...), content...)
}

func derLength(n int) []byte {
	if n < 128 {
		return []byte{byte(n)}
	}
	var b []byte
	for ; n > 0; n >>= 8 {
		b = append([]byte{byte(n)}, b...)
	}
	return append([]byte{0x80 | byte(len(b))}, b...)
}

// headerLen is the length of a DER element's tag and length octets.
func headerLen(der []byte) int {
	if len(der) < 2 || der[1] < 0x80 {
		return 2
	}
	return 2 + int(der[1]&0x7f)
}

// cmsSignature is a parsed and verified CMS signature.
type cmsSignature struct {
	signer      *x509.Certificate
	signingTime bool // the signed attributes carry a signing time
}

// verifyCMS checks a detached CMS SignedData against the signed content: the message digest, the
// signature over the signed attributes (or over the content when there are none), and that the key is
// the one of the certificate the signer info names.
func verifyCMS(der []byte, content []byte) (*cmsSignature, error) {
	var ci contentInfo
	rest, err := asn1.Unmarshal(der, &ci)
	if err != nil || !ci.ContentType.Equal(oidSignedData) {
		return nil, invalid("not a CMS SignedData")
	}
	_ = rest // PDF signature contents are padded with zeros after the DER
	var sd signedData
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return nil, invalid("malformed CMS SignedData: %v", err)
	}
	if len(sd.SignerInfos) == 0 {
		return nil, invalid("CMS SignedData without a signer")
	}
	certs, err := parseCertificates(sd.Certificates.Bytes)
	if err != nil {
		return nil, invalid("malformed certificates: %v", err)
	}
	var out *cmsSignature
	for _, si := range sd.SignerInfos {
		cert, err := findSigner(si.SID, certs)
		if err != nil {
			return nil, err
		}
		h, ok := digestHashes[si.DigestAlgorithm.Algorithm.String()]
		if !ok {
			return nil, invalid("unsupported digest algorithm %s", si.DigestAlgorithm.Algorithm)
		}
		d := newHash(h)
		d.Write(content)
		contentDigest := d.Sum(nil)
		signed := contentDigest
		sig := &cmsSignature{signer: cert}
		if len(si.SignedAttrs.FullBytes) > 0 {
			attrs := append([]byte{0x31}, si.SignedAttrs.FullBytes[1:]...)
			md, signingTime, err := readSignedAttributes(attrs)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(md, contentDigest) {
				return nil, invalid("the signed bytes changed (message digest mismatch)")
			}
			sig.signingTime = signingTime
			a := newHash(h)
			a.Write(attrs)
			signed = a.Sum(nil)
		}
		if err := verifySignature(cert.PublicKey, si.SignatureAlgorithm, h, signed, si.Signature); err != nil {
			return nil, err
		}
		if out == nil {
			out = sig
		}
	}
	return out, nil
}

func newHash(h crypto.Hash) hash.Hash {
	switch h {
	case crypto.SHA1:
		return sha1.New()
	case crypto.SHA384:
		return sha512.New384()
	case crypto.SHA512:
		return sha512.New()
	}
	return sha256.New()
}

func parseCertificates(raw []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for len(raw) > 0 {
		var v asn1.RawValue
		rest, err := asn1.Unmarshal(raw, &v)
		if err != nil {
			return nil, err
		}
		if v.Class == asn1.ClassUniversal && v.Tag == asn1.TagSequence {
			c, err := x509.ParseCertificate(v.FullBytes)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		raw = rest
	}
	return out, nil
}

// findSigner finds the certificate a signer info names by issuer and serial number or by subject key
// identifier.
func findSigner(sid asn1.RawValue, certs []*x509.Certificate) (*x509.Certificate, error) {
	if sid.Class == asn1.ClassContextSpecific && sid.Tag == 0 {
		for _, c := range certs {
			if bytes.Equal(c.SubjectKeyId, sid.Bytes) {
				return c, nil
			}
		}
		return nil, invalid("the signer's certificate is not in the signature")
	}
	var ias issuerAndSerial
	if _, err := asn1.Unmarshal(sid.FullBytes, &ias); err != nil {
		return nil, invalid("malformed signer identifier")
	}
	for _, c := range certs {
		if c.SerialNumber.Cmp(ias.Serial) == 0 && bytes.Equal(c.RawIssuer, ias.Issuer.FullBytes) {
			return c, nil
		}
	}
	return nil, invalid("the signer's certificate is not in the signature")
}

// readSignedAttributes returns the message digest and whether a signing time is present.
func readSignedAttributes(set []byte) ([]byte, bool, error) {
	var attrs []attribute
	if _, err := asn1.UnmarshalWithParams(set, &attrs, "set"); err != nil {
		return nil, false, invalid("malformed signed attributes")
	}
	var md []byte
	signingTime := false
	for _, a := range attrs {
		switch {
		case a.Type.Equal(oidAttrMessageDigest):
			if _, err := asn1.Unmarshal(a.Values.Bytes, &md); err != nil {
				return nil, false, invalid("malformed message digest")
			}
		case a.Type.Equal(oidAttrSigningTime):
			signingTime = true
		}
	}
	if md == nil {
		return nil, false, invalid("the signed attributes lack the message digest")
	}
	return md, signingTime, nil
}

// verifySignature checks a signature over a digest with an RSA (PKCS#1 v1.5 or PSS) or ECDSA key.
func verifySignature(pub any, alg pkix.AlgorithmIdentifier, h crypto.Hash, digest, sig []byte) error {
	if ah, ok := signatureAlgorithmHashes[alg.Algorithm.String()]; ok && ah != h {
		return invalid("the signature algorithm's digest differs from the signer's")
	}
	var err error
	switch key := pub.(type) {
	case *rsa.PublicKey:
		if alg.Algorithm.Equal(oidRSAPSS) {
			err = rsa.VerifyPSS(key, h, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto})
		} else {
			err = rsa.VerifyPKCS1v15(key, h, digest, sig)
		}
	case *ecdsa.PublicKey:
		if !ecdsa.VerifyASN1(key, digest, sig) {
			err = errors.New("ECDSA verification failed")
		}
	default:
		return invalid("unsupported public key")
	}
	if err != nil {
		return invalid("the signature does not match the signer's key")
	}
	return nil
}

// emptyAlgorithm is an algorithm identifier that names no digest: XMLDSig gives the hash apart.
var emptyAlgorithm pkix.AlgorithmIdentifier
