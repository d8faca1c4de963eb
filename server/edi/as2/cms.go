package as2

import (
	"bytes"
	"compress/zlib"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/smallstep/pkcs7"
)

// CMS object identifiers beyond those pkcs7 exports.
var (
	oidCompressedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 9}
	oidZlib           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 3, 8}
)

// digests maps a signature digest to its hash and the names it goes by in micalg parameters and in
// Received-Content-MIC (RFC 4130 writes "sha1", RFC 5751 "sha-1" and "sha-256").
var digests = map[string]struct {
	hash   crypto.Hash
	oid    asn1.ObjectIdentifier
	micalg string
}{
	SHA256: {crypto.SHA256, pkcs7.OIDDigestAlgorithmSHA256, "sha-256"},
	SHA1:   {crypto.SHA1, pkcs7.OIDDigestAlgorithmSHA1, "sha1"},
}

// digestByName reads a micalg name in any of its spellings.
func digestByName(name string) (string, bool) {
	switch name {
	case "sha-256", "sha256":
		return SHA256, true
	case "sha1", "sha-1":
		return SHA1, true
	}
	return "", false
}

// mic is the Received-Content-MIC of content under a digest: "base64, micalg".
func mic(content []byte, digest string) string {
	d := digests[digest]
	h := d.hash.New()
	h.Write(content)
	return base64.StdEncoding.EncodeToString(h.Sum(nil)) + ", " + d.micalg
}

// sameMIC compares two Received-Content-MIC values, whatever the spelling of their algorithm.
func sameMIC(a, b string) bool {
	av, aa, okA := splitMIC(a)
	bv, ba, okB := splitMIC(b)
	return okA && okB && av == bv && aa == ba
}

func splitMIC(m string) (value, digest string, ok bool) {
	v, alg, found := bytes.Cut([]byte(m), []byte(","))
	if !found {
		return "", "", false
	}
	digest, ok = digestByName(string(bytes.ToLower(bytes.TrimSpace(alg))))
	return string(bytes.TrimSpace(v)), digest, ok
}

// signDetached is a detached CMS SignedData over content, carrying the signer's certificate.
func signDetached(content []byte, id Identity, digest string) ([]byte, error) {
	sd, err := pkcs7.NewSignedData(content)
	if err != nil {
		return nil, err
	}
	sd.SetDigestAlgorithm(digests[digest].oid)
	if err := sd.AddSigner(id.Certificate, id.Key, pkcs7.SignerInfoConfig{}); err != nil {
		return nil, err
	}
	sd.Detach()
	return sd.Finish()
}

// errNotSigner is a signature made by someone other than the partner.
var errNotSigner = errors.New("as2: the signature is not the partner's")

// verifyDetached checks a detached signature over content against the partner's certificate only
// (whatever certificates the signature carries) and returns the digest it used.
func verifyDetached(content, signature []byte, cert *x509.Certificate) (string, error) {
	p7, err := pkcs7.Parse(signature)
	if err != nil {
		return "", err
	}
	if len(p7.Signers) != 1 {
		return "", errors.New("as2: the signature must have one signer")
	}
	digest := ""
	for name, d := range digests {
		if p7.Signers[0].DigestAlgorithm.Algorithm.Equal(d.oid) {
			digest = name
		}
	}
	if digest == "" {
		return "", errors.New("as2: unsupported signature digest")
	}
	if ias := p7.Signers[0].IssuerAndSerialNumber; ias.SerialNumber == nil || ias.SerialNumber.Cmp(cert.SerialNumber) != 0 ||
		!bytes.Equal(ias.IssuerName.FullBytes, cert.RawIssuer) {
		return "", errNotSigner
	}
	p7.Content = content
	p7.Certificates = []*x509.Certificate{cert}
	return digest, p7.Verify()
}

// envelope encrypts content for the recipient's certificate as CMS EnvelopedData (RSA PKCS#1 v1.5 key
// transport, the content cipher in CBC mode).
func envelope(content []byte, recipient *x509.Certificate, cipherName string) ([]byte, error) {
	pub, ok := recipient.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("as2: the partner's certificate has no RSA key")
	}
	var (
		oid     asn1.ObjectIdentifier
		keySize int
		newBlk  func([]byte) (cipher.Block, error)
	)
	switch cipherName {
	case AES128:
		oid, keySize, newBlk = pkcs7.OIDEncryptionAlgorithmAES128CBC, 16, aes.NewCipher
	case AES256:
		oid, keySize, newBlk = pkcs7.OIDEncryptionAlgorithmAES256CBC, 32, aes.NewCipher
	case DES3:
		oid, keySize, newBlk = pkcs7.OIDEncryptionAlgorithmDESEDE3CBC, 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("as2: unsupported cipher %q", cipherName)
	}
	key := make([]byte, keySize)
	rand.Read(key)
	block, err := newBlk(key)
	if err != nil {
		return nil, err
	}
	iv := make([]byte, block.BlockSize())
	rand.Read(iv)
	pad := block.BlockSize() - len(content)%block.BlockSize()
	sealed := append(bytes.Clone(content), bytes.Repeat([]byte{byte(pad)}, pad)...)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(sealed, sealed)
	encKey, err := rsa.EncryptPKCS1v15(rand.Reader, pub, key)
	if err != nil {
		return nil, err
	}
	ivParam, _ := asn1.Marshal(iv)
	env, err := asn1.Marshal(envelopedData{
		RecipientInfos: []keyTransRecipient{{
			Recipient:     issuerAndSerial{Issuer: asn1.RawValue{FullBytes: recipient.RawIssuer}, Serial: recipient.SerialNumber},
			KeyEncryption: pkix.AlgorithmIdentifier{Algorithm: pkcs7.OIDEncryptionAlgorithmRSA, Parameters: asn1.NullRawValue},
			EncryptedKey:  encKey,
		}},
		Content: encryptedContent{
			Type:       pkcs7.OIDData,
			Algorithm:  pkix.AlgorithmIdentifier{Algorithm: oid, Parameters: asn1.RawValue{FullBytes: ivParam}},
			Ciphertext: sealed,
		},
	})
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(contentInfo{Type: pkcs7.OIDEnvelopedData, Content: explicit0(env)})
}

// decrypt opens EnvelopedData addressed to the identity (AES-CBC, AES-GCM or 3DES content).
func decrypt(data []byte, id Identity) ([]byte, error) {
	p7, err := pkcs7.Parse(data)
	if err != nil {
		return nil, err
	}
	return p7.Decrypt(id.Certificate, id.Key)
}

// compress wraps content in CMS CompressedData with zlib (RFC 3274).
func compress(content []byte) ([]byte, error) {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(content)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	octets, _ := asn1.Marshal(z.Bytes())
	cd, err := asn1.Marshal(compressedData{
		Algorithm: pkix.AlgorithmIdentifier{Algorithm: oidZlib},
		Content:   contentInfo{Type: pkcs7.OIDData, Content: explicit0(octets)},
	})
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(contentInfo{Type: oidCompressedData, Content: explicit0(cd)})
}

// decompress opens CMS CompressedData (DER), refusing output beyond limit bytes.
func decompress(data []byte, limit int64) ([]byte, error) {
	var ci contentInfo
	if _, err := asn1.Unmarshal(data, &ci); err != nil {
		return nil, err
	}
	if !ci.Type.Equal(oidCompressedData) {
		return nil, errors.New("as2: not CompressedData")
	}
	var cd compressedData
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &cd); err != nil {
		return nil, err
	}
	if !cd.Algorithm.Algorithm.Equal(oidZlib) {
		return nil, errors.New("as2: unsupported compression algorithm")
	}
	var z []byte
	if _, err := asn1.Unmarshal(cd.Content.Content.Bytes, &z); err != nil {
		return nil, err
	}
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > limit {
		return nil, errTooLarge
	}
	return out, nil
}

// isCompressedData tells CompressedData from EnvelopedData when the sender left smime-type out.
func isCompressedData(data []byte) bool {
	var ci contentInfo
	_, err := asn1.Unmarshal(data, &ci)
	return err == nil && ci.Type.Equal(oidCompressedData)
}

// explicit0 is inner DER under the explicit [0] tag of ContentInfo's content (a RawValue is written as
// it is, so the tag the struct field declares for reading must be spelled out for writing).
func explicit0(inner []byte) asn1.RawValue {
	return asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: inner}
}

var errTooLarge = errors.New("as2: message too large")

// The CMS structures written here (RFC 5652 and RFC 3274).
type (
	contentInfo struct {
		Type    asn1.ObjectIdentifier
		Content asn1.RawValue `asn1:"explicit,optional,tag:0"`
	}
	compressedData struct {
		Version   int
		Algorithm pkix.AlgorithmIdentifier
		Content   contentInfo
	}
	envelopedData struct {
		Version        int
		RecipientInfos []keyTransRecipient `asn1:"set"`
		Content        encryptedContent
	}
	keyTransRecipient struct {
		Version       int
		Recipient     issuerAndSerial
		KeyEncryption pkix.AlgorithmIdentifier
		EncryptedKey  []byte
	}
	issuerAndSerial struct {
		Issuer asn1.RawValue
		Serial *big.Int
	}
	encryptedContent struct {
		Type       asn1.ObjectIdentifier
		Algorithm  pkix.AlgorithmIdentifier
		Ciphertext []byte `asn1:"tag:0,optional"`
	}
)
