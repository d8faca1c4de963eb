package mailer

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
)

// Returned mail: a message the service sent comes back as a delivery status notification (RFC 3464),
// addressed to the message's return path. The return path carries a tag of the message's record
// (VERP: bounces+tag@domain), and the report usually quotes the original headers with its Message-ID;
// either finds the record.

// Report is what a delivery status notification says.
type Report struct {
	To         []string          // where the report was addressed (Delivered-To, X-Original-To, To)
	MessageID  string            // the returned message's Message-ID, without brackets
	EnvelopeID string            // Original-Envelope-Id, when the sender asked for one
	Recipients []RecipientStatus // one per recipient the report is about
}

// RecipientStatus is the per-recipient part of a report.
type RecipientStatus struct {
	Recipient  string // the Final-Recipient (or Original-Recipient) address
	Action     string // failed, delayed, delivered, relayed, expanded
	Status     string // an RFC 3463 code: 5.1.1
	Diagnostic string // the remote server's words, when given
}

// Failed tells whether the report says a recipient did not get the message (delays do not count).
func (r RecipientStatus) Failed() bool { return strings.EqualFold(r.Action, "failed") }

// ErrNotDSN is a message that is not a delivery status notification.
var ErrNotDSN = errors.New("not a delivery status notification")

// ParseDSN reads a delivery status notification: a multipart/report of report-type delivery-status.
func ParseDSN(raw []byte) (*Report, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/report" || !strings.Contains(strings.ToLower(params["report-type"]), "delivery-status") {
		return nil, ErrNotDSN
	}
	r := &Report{}
	for _, h := range []string{"Delivered-To", "X-Original-To", "To"} {
		for _, v := range msg.Header[textproto.CanonicalMIMEHeaderKey(h)] {
			if addrs, err := mail.ParseAddressList(v); err == nil {
				for _, a := range addrs {
					r.To = append(r.To, a.Address)
				}
			} else if a := strings.Trim(strings.TrimSpace(v), "<>"); a != "" {
				r.To = append(r.To, a)
			}
		}
	}
	parts := multipart.NewReader(msg.Body, params["boundary"])
	sawStatus := false
	for {
		p, err := parts.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(decoded(p))
		if err != nil {
			return nil, err
		}
		partType, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		switch partType {
		case "message/delivery-status", "message/global-delivery-status":
			sawStatus = true
			readStatusFields(r, body)
		case "message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers":
			if h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(body, '\r', '\n')))).ReadMIMEHeader(); err == nil || len(h) > 0 {
				r.MessageID = strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>")
			}
		}
	}
	if !sawStatus {
		return nil, ErrNotDSN
	}
	return r, nil
}

// decoded undoes a part's transfer encoding (multipart.Reader does quoted-printable only for text).
func decoded(p *multipart.Part) io.Reader {
	switch strings.ToLower(strings.TrimSpace(p.Header.Get("Content-Transfer-Encoding"))) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, p)
	case "quoted-printable":
		return quotedprintable.NewReader(p)
	}
	return p
}

// readStatusFields reads the blocks of a delivery-status body: the per-message fields, then one block
// per recipient.
func readStatusFields(r *Report, body []byte) {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(bytes.TrimLeft(body, "\r\n"))))
	first := true
	for {
		h, err := tp.ReadMIMEHeader()
		if len(h) > 0 {
			if first {
				r.EnvelopeID = strings.TrimSpace(h.Get("Original-Envelope-Id"))
			}
			if rcpt := typedValue(h.Get("Final-Recipient")); rcpt != "" || h.Get("Action") != "" {
				if rcpt == "" {
					rcpt = typedValue(h.Get("Original-Recipient"))
				}
				r.Recipients = append(r.Recipients, RecipientStatus{
					Recipient: rcpt, Action: strings.ToLower(strings.TrimSpace(h.Get("Action"))),
					Status: strings.TrimSpace(h.Get("Status")), Diagnostic: typedValue(h.Get("Diagnostic-Code")),
				})
			}
			first = false
		}
		if err != nil {
			return
		}
	}
}

// typedValue drops the type of a "type; value" field (rfc822; a@b, smtp; 550 ...).
func typedValue(v string) string {
	if _, rest, ok := strings.Cut(v, ";"); ok {
		v = rest
	}
	return strings.Trim(strings.TrimSpace(v), "<>")
}

// BounceAddress puts a tag into the local part of the return path: bounces@d becomes bounces+tag@d.
func BounceAddress(returnPath, tag string) string {
	local, domain, ok := strings.Cut(returnPath, "@")
	if !ok {
		return returnPath
	}
	return local + "+" + tag + "@" + domain
}

// BounceTag takes the tag out of an address BounceAddress made from the same return path.
func BounceTag(address, returnPath string) (string, bool) {
	local, domain, ok := strings.Cut(returnPath, "@")
	gotLocal, gotDomain, ok2 := strings.Cut(strings.Trim(address, "<> "), "@")
	if !ok || !ok2 || !strings.EqualFold(domain, gotDomain) {
		return "", false
	}
	tag, ok := strings.CutPrefix(gotLocal, local+"+")
	return tag, ok && tag != ""
}
