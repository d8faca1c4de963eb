// Package as2 carries EDI messages over AS2 (RFC 4130): S/MIME signed, optionally compressed (RFC
// 5402) and encrypted payloads POSTed over HTTP(S), acknowledged by signed MDNs, synchronous in the
// response or asynchronous in a later POST.
//
// Send builds and posts a message; Handler is the inbound endpoint (messages and asynchronous MDNs);
// Connector is the edi.Connector over both. The installation's identity, its partners and the ledger
// of messages (duplicates, MICs awaiting their MDN) come from a Book, so the package knows nothing of
// the store or the web framework.
//
// CMS signing, verification and decryption use github.com/smallstep/pkcs7; the enveloping (encryption)
// and CompressedData are written here, because that library takes the content cipher from a package
// variable (a race between partners with different ciphers), cannot encrypt 3DES and has no
// CompressedData at all.
package as2

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"strings"
)

// Version is the AS2-Version this implementation speaks: 1.2 announces RFC 5402 compression.
const Version = "1.2"

// Signature digests a partner may use. SHA-1 is for legacy partners only.
const (
	SHA256 = "sha256"
	SHA1   = "sha1"
)

// Content ciphers a partner may use. 3DES is for legacy partners; None leaves the message in clear
// (signed all the same), for partners reached over HTTPS that want no S/MIME encryption.
const (
	AES128 = "aes128"
	AES256 = "aes256"
	DES3   = "3des"
	None   = "none"
)

// MDN modes.
const (
	MDNSync  = "sync"
	MDNAsync = "async"
)

// The values a Partner's Sign, Cipher and MDN accept.
var (
	SignAlgorithms   = []string{SHA256, SHA1}
	CipherAlgorithms = []string{AES128, AES256, DES3, None}
	MDNModes         = []string{MDNSync, MDNAsync}
)

// Identity is this installation's side: its AS2 id and the key and certificate it signs with and
// partners encrypt to.
type Identity struct {
	ID          string
	Certificate *x509.Certificate
	Key         *rsa.PrivateKey
}

// Partner is another AS2 station: where to post, which certificate authenticates it and receives our
// encryption, and the algorithms it wants.
type Partner struct {
	Name        string // the installation's name for it, used by EDI routing
	ID          string // its AS2 id
	URL         string // where messages are POSTed
	Certificate *x509.Certificate
	Sign        string // SHA256 or SHA1
	Cipher      string // AES128, AES256, DES3 or None
	Compress    bool
	MDN         string // MDNSync or MDNAsync
}

// ErrUnknown is what a Book answers for a partner or message it does not have.
var ErrUnknown = errors.New("as2: unknown")

// Book is what the AS2 layer needs from the installation: its identity, its partners and the ledger of
// messages (for duplicate detection and for matching asynchronous MDNs to what was sent).
type Book interface {
	Identity(ctx context.Context) (Identity, error)
	PartnerByName(ctx context.Context, name string) (Partner, error) // ErrUnknown
	PartnerByID(ctx context.Context, as2ID string) (Partner, error)  // ErrUnknown
	// RecordSent keeps an outbound message's MIC ("base64, algorithm") until its MDN arrives. Called
	// again for a retry of the same message.
	RecordSent(ctx context.Context, partner, messageID, mic string) error
	// SentMIC is the MIC recorded for an outbound message; ErrUnknown when none was sent.
	SentMIC(ctx context.Context, partner, messageID string) (string, error)
	// Received reports whether the partner's message was already received and handed on.
	Received(ctx context.Context, partner, messageID string) (bool, error)
	// RecordReceived marks the partner's message as received and handed on.
	RecordReceived(ctx context.Context, partner, messageID, mic string) error
}

// ValidID tells whether s can be an AS2 id (RFC 4130 section 6.2: 1 to 128 printable ASCII characters).
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\' {
			return false
		}
	}
	return true
}

// quoteID writes an AS2 id for a header: quoted when it has spaces (RFC 4130 section 6.2).
func quoteID(id string) string {
	if strings.ContainsAny(id, " \t") {
		return `"` + id + `"`
	}
	return id
}

// unquoteID reads an AS2 id from a header.
func unquoteID(h string) string {
	h = strings.TrimSpace(h)
	if len(h) >= 2 && h[0] == '"' && h[len(h)-1] == '"' {
		return h[1 : len(h)-1]
	}
	return h
}

// messageIDHeader writes a Message-ID (RFC 5322 msg-id, in angle brackets); the edi layer keeps the
// bare id.
func messageIDHeader(id string) string { return "<" + id + ">" }

// bareMessageID reads a Message-ID header back to the bare id.
func bareMessageID(h string) string {
	h = strings.TrimSpace(h)
	return strings.TrimSuffix(strings.TrimPrefix(h, "<"), ">")
}
