package as2

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/smallstep/pkcs7"
)

// pack wraps a payload entity for the partner: compressed when it asks, signed, then encrypted unless
// its cipher is None. It returns the outermost entity (whose header goes into the HTTP request) and
// the MIC the partner's MDN must report: the digest of the signed entity.
func pack(self Identity, p Partner, payload part) (part, string, error) {
	content := payload
	if p.Compress {
		z, err := compress(content.bytes())
		if err != nil {
			return part{}, "", err
		}
		content = smimePart("compressed-data", "smime.p7z", z)
	}
	signed, err := signPart(self, content.bytes(), p.Sign)
	if err != nil {
		return part{}, "", err
	}
	micValue := mic(content.bytes(), p.Sign)
	if p.Cipher == None {
		return signed, micValue, nil
	}
	enc, err := envelope(signed.bytes(), p.Certificate, p.Cipher)
	if err != nil {
		return part{}, "", err
	}
	return smimePart("enveloped-data", "smime.p7m", enc), micValue, nil
}

// smimePart is an application/pkcs7-mime entity carrying DER in base64. HTTP is 8-bit clean and RFC
// 4130 allows binary, but MIME stacks that read bodies as text (libas2 among them) corrupt binary DER.
func smimePart(smimeType, name string, der []byte) part {
	return part{header: [][2]string{
		{"Content-Type", fmt.Sprintf(`application/pkcs7-mime; smime-type=%s; name="%s"`, smimeType, name)},
		{"Content-Transfer-Encoding", "base64"},
		{"Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, name)},
	}, body: base64Lines(der)}
}

// signPart is the multipart/signed entity over content's exact bytes (RFC 5751 section 3.5).
func signPart(self Identity, content []byte, digest string) (part, error) {
	sig, err := signDetached(content, self, digest)
	if err != nil {
		return part{}, err
	}
	b := boundary()
	signature := part{header: [][2]string{
		{"Content-Type", `application/pkcs7-signature; name="smime.p7s"`},
		{"Content-Transfer-Encoding", "base64"},
		{"Content-Disposition", `attachment; filename="smime.p7s"`},
	}, body: base64Lines(sig)}
	var body bytes.Buffer
	body.WriteString("--" + b + "\r\n")
	body.Write(content)
	body.WriteString("\r\n--" + b + "\r\n")
	body.Write(signature.bytes())
	body.WriteString("\r\n--" + b + "--\r\n")
	return part{header: [][2]string{
		{"Content-Type", fmt.Sprintf(`multipart/signed; protocol="application/pkcs7-signature"; micalg=%s; boundary="%s"`, digests[digest].micalg, b)},
	}, body: body.Bytes()}, nil
}

// opened is what unwrapping an inbound entity found.
type opened struct {
	inner   entity // the innermost entity: the payload, or an MDN's multipart/report
	signed  bool
	digest  string // the signature's digest
	content []byte // the signed entity's exact bytes, for the MIC
}

// failure is a message that cannot be processed, with the MDN disposition modifier that says why
// (RFC 4130 section 7.4.3, RFC 5402 section 3).
type failure struct {
	modifier string // decryption-failed, authentication-failed, integrity-check-failed, ...
	err      error
}

func (f *failure) Error() string { return f.modifier + ": " + f.err.Error() }

// Disposition modifiers.
const (
	decryptionFailed     = "decryption-failed"
	authenticationFailed = "authentication-failed"
	integrityFailed      = "integrity-check-failed"
	decompressionFailed  = "decompression-failed"
	unexpectedError      = "unexpected-processing-error"
)

// maxLayers bounds the S/MIME layers unwrapped from one message (encryption, signature and
// compression, each at most once in practice).
const maxLayers = 4

// open unwraps an inbound entity: decrypts with the identity's key, decompresses, and verifies the
// signature against the partner's certificate, in whatever order the sender applied them.
func open(e entity, self Identity, partner Partner, limit int64) (opened, *failure) {
	var o opened
	for range maxLayers {
		t, params := e.mediaType()
		switch t {
		case "application/pkcs7-mime", "application/x-pkcs7-mime":
			data, err := e.decoded()
			if err != nil {
				return o, &failure{decryptionFailed, err}
			}
			if smimeType := strings.ToLower(params["smime-type"]); smimeType == "compressed-data" || smimeType == "" && isCompressedData(data) {
				data, err = decompress(data, limit)
				if err != nil {
					return o, &failure{decompressionFailed, err}
				}
			} else {
				data, err = decrypt(data, self)
				if err != nil {
					return o, &failure{decryptionFailed, err}
				}
			}
			if e, err = parseEntity(data); err != nil {
				return o, &failure{unexpectedError, err}
			}
		case "multipart/signed":
			if o.signed {
				return o, &failure{unexpectedError, errors.New("as2: signed twice")}
			}
			content, sig, err := splitSigned(e.body, params["boundary"])
			if err != nil {
				return o, &failure{integrityFailed, err}
			}
			der, err := sig.decoded()
			if err != nil {
				return o, &failure{integrityFailed, err}
			}
			digest, err := verifyDetached(content, der, partner.Certificate)
			var mismatch *pkcs7.MessageDigestMismatchError
			if trimmed, ok := bytes.CutSuffix(content, []byte("\r\n")); ok && errors.As(err, &mismatch) {
				// Some stations (libas2) sign the entity without the line break that ends it before the
				// delimiter; RFC 1847 counts that line break in the content, so it is tried first.
				if digest, err = verifyDetached(trimmed, der, partner.Certificate); err == nil {
					content = trimmed
				}
			}
			if errors.Is(err, errNotSigner) {
				return o, &failure{authenticationFailed, err}
			} else if err != nil {
				return o, &failure{integrityFailed, err}
			}
			o.signed, o.digest, o.content = true, digest, content
			if e, err = parseEntity(content); err != nil {
				return o, &failure{unexpectedError, err}
			}
		default:
			if !o.signed {
				return o, &failure{authenticationFailed, errors.New("as2: the message is not signed")}
			}
			o.inner = e
			return o, nil
		}
	}
	return o, &failure{unexpectedError, errors.New("as2: too many S/MIME layers")}
}
