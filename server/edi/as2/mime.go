package as2

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/textproto"
	"strings"
)

// part is one MIME entity as it goes on the wire: ordered header fields and the body. Signatures and
// MICs cover its exact bytes, so it is built and kept as bytes rather than re-serialised.
type part struct {
	header [][2]string // outbound: written in this order
	body   []byte
}

// bytes is the entity in canonical form: CRLF header lines, an empty line, the body.
func (p part) bytes() []byte {
	var b bytes.Buffer
	for _, f := range p.header {
		b.WriteString(f[0] + ": " + f[1] + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(p.body)
	return b.Bytes()
}

// entity is a MIME entity as read: its header and its body, still transfer-encoded.
type entity struct {
	header textproto.MIMEHeader
	body   []byte
}

// parseEntity reads an entity from its bytes (header lines ending in CRLF or LF, then the body).
func parseEntity(raw []byte) (entity, error) {
	end, sep := len(raw), 0
	for _, s := range []string{"\r\n\r\n", "\n\n"} {
		if i := bytes.Index(raw, []byte(s)); i >= 0 && i < end {
			end, sep = i, len(s)
		}
	}
	switch {
	case bytes.HasPrefix(raw, []byte("\r\n")):
		return entity{header: textproto.MIMEHeader{}, body: raw[2:]}, nil
	case bytes.HasPrefix(raw, []byte("\n")):
		return entity{header: textproto.MIMEHeader{}, body: raw[1:]}, nil
	case sep == 0:
		return entity{}, errors.New("as2: MIME entity without a header end")
	}
	h, err := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(raw[:end]), strings.NewReader("\r\n\r\n")))).ReadMIMEHeader()
	if err != nil {
		return entity{}, err
	}
	return entity{header: h, body: raw[end+sep:]}, nil
}

// mediaType is the entity's Content-Type, lower case, with its parameters.
func (e entity) mediaType() (string, map[string]string) {
	t, params, err := mime.ParseMediaType(e.header.Get("Content-Type"))
	if err != nil {
		return "", nil
	}
	return t, params
}

// decoded is the body with its Content-Transfer-Encoding undone.
func (e entity) decoded() ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(e.header.Get("Content-Transfer-Encoding"))) {
	case "base64":
		clean := bytes.Map(func(r rune) rune {
			if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, e.body)
		out := make([]byte, base64.StdEncoding.DecodedLen(len(clean)))
		n, err := base64.StdEncoding.Decode(out, clean)
		return out[:n], err
	case "quoted-printable":
		return io.ReadAll(quotedprintable.NewReader(bytes.NewReader(e.body)))
	}
	return e.body, nil
}

// splitSigned cuts a multipart/signed body into the signed entity's exact bytes and the signature
// entity (RFC 1847: the signed part is everything between its delimiter line and the CRLF before the
// next delimiter).
func splitSigned(body []byte, boundary string) (signed []byte, signature entity, err error) {
	delim := []byte("--" + boundary)
	first := bytes.Index(body, delim)
	if first < 0 || (first > 0 && body[first-1] != '\n') {
		return nil, entity{}, errors.New("as2: multipart/signed without its boundary")
	}
	start := bytes.IndexByte(body[first:], '\n')
	if start < 0 {
		return nil, entity{}, errors.New("as2: truncated multipart/signed")
	}
	start += first + 1
	next := bytes.Index(body[start:], append([]byte("\n"), delim...))
	if next < 0 {
		return nil, entity{}, errors.New("as2: multipart/signed without a signature")
	}
	next += start
	signed = body[start:next]
	signed = bytes.TrimSuffix(signed, []byte("\r"))
	rest := body[next+1+len(delim):]
	lineEnd := bytes.IndexByte(rest, '\n')
	if lineEnd < 0 {
		return nil, entity{}, errors.New("as2: truncated multipart/signed")
	}
	rest = rest[lineEnd+1:]
	if end := bytes.Index(rest, append([]byte("\n"), delim...)); end >= 0 {
		rest = bytes.TrimSuffix(rest[:end], []byte("\r"))
	}
	signature, err = parseEntity(rest)
	return signed, signature, err
}

// boundary is a fresh MIME boundary.
func boundary() string { return "----=_as2_" + randomHex() }

// newMessageID is a fresh bare Message-ID of this station.
func newMessageID(self Identity) string {
	return randomHex() + "@" + strings.Map(func(r rune) rune {
		if r <= ' ' || r > '~' || strings.ContainsRune(`<>"@\`, r) {
			return '_'
		}
		return r
	}, self.ID)
}

func randomHex() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// base64Lines is data in base64, in lines of 76 characters (RFC 2045), without a final line break.
func base64Lines(data []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(data)
	var b bytes.Buffer
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc)
	return b.Bytes()
}
