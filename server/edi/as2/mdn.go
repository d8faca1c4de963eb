package as2

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
)

// MDN is the part of a Message Disposition Notification (RFC 3798, RFC 4130 section 7) that matters
// here.
type MDN struct {
	OriginalMessageID string // bare
	Disposition       string // for example "automatic-action/MDN-sent-automatically; processed"
	MIC               string // Received-Content-MIC
}

// Processed tells whether the partner processed the message: "processed", or "processed/warning"
// (a duplicate it had already taken), but not an error or failure.
func (m MDN) Processed() bool {
	_, d, _ := strings.Cut(m.Disposition, ";")
	d = strings.ToLower(strings.TrimSpace(d))
	return strings.HasPrefix(d, "processed") && !strings.Contains(d, "/error") && !strings.Contains(d, "/failure")
}

// judge is the verdict on an MDN for a message sent with the given MIC: nil when the partner
// processed exactly what was sent.
func judge(m MDN, messageID, sentMIC string) error {
	switch {
	case m.OriginalMessageID != messageID:
		return fmt.Errorf("as2: the MDN answers %q, not %q", m.OriginalMessageID, messageID)
	case !m.Processed():
		return fmt.Errorf("as2: the partner refused the message: %s", m.Disposition)
	case !sameMIC(m.MIC, sentMIC):
		return fmt.Errorf("%w (MIC %q, sent %q)", errOtherContent, m.MIC, sentMIC)
	}
	return nil
}

// errOtherContent is an MDN whose MIC is not the one of what was sent.
var errOtherContent = errors.New("as2: the partner received other content")

// buildMDN is our signed MDN for a partner's message. modifier is empty for "processed", or for
// example "error: decryption-failed" or "warning: duplicate-document".
func buildMDN(self Identity, p Partner, messageID, modifier, micValue string) (part, error) {
	disposition := "automatic-action/MDN-sent-automatically; processed"
	text := "The AS2 message " + messageID + " was received and processed."
	if modifier != "" {
		disposition += "/" + modifier
		text = "The AS2 message " + messageID + " was received: " + modifier + "."
	}
	fields := "Reporting-UA: einvoice\r\n" +
		"Original-Recipient: rfc822; " + quoteID(self.ID) + "\r\n" +
		"Final-Recipient: rfc822; " + quoteID(self.ID) + "\r\n" +
		"Original-Message-ID: " + messageIDHeader(messageID) + "\r\n"
	if micValue != "" {
		fields += "Received-Content-MIC: " + micValue + "\r\n"
	}
	fields += "Disposition: " + disposition + "\r\n"
	b := boundary()
	report := part{header: [][2]string{
		{"Content-Type", fmt.Sprintf(`multipart/report; report-type=disposition-notification; boundary="%s"`, b)},
	}, body: []byte("--" + b + "\r\n" +
		"Content-Type: text/plain; charset=us-ascii\r\nContent-Transfer-Encoding: 7bit\r\n\r\n" + text + "\r\n" +
		"--" + b + "\r\n" +
		"Content-Type: message/disposition-notification\r\nContent-Transfer-Encoding: 7bit\r\n\r\n" + fields + "\r\n" +
		"--" + b + "--\r\n")}
	return signPart(self, report.bytes(), p.Sign)
}

// parseMDN reads the disposition notification out of a multipart/report.
func parseMDN(e entity) (MDN, error) {
	t, params := e.mediaType()
	if t != "multipart/report" {
		return MDN{}, fmt.Errorf("as2: expected an MDN (multipart/report), got %q", t)
	}
	mr := multipart.NewReader(bytes.NewReader(e.body), params["boundary"])
	for range 8 {
		p, err := mr.NextRawPart()
		if err != nil {
			break
		}
		if !strings.HasPrefix(strings.ToLower(p.Header.Get("Content-Type")), "message/disposition-notification") {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(p, 64<<10))
		if err != nil {
			return MDN{}, err
		}
		switch strings.ToLower(strings.TrimSpace(p.Header.Get("Content-Transfer-Encoding"))) {
		case "base64":
			if data, err = base64.StdEncoding.DecodeString(string(bytes.Join(bytes.Fields(data), nil))); err != nil {
				return MDN{}, err
			}
		}
		h, err := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(bytes.TrimSpace(data)), strings.NewReader("\r\n\r\n")))).ReadMIMEHeader()
		if err != nil {
			return MDN{}, err
		}
		return MDN{
			OriginalMessageID: bareMessageID(h.Get("Original-Message-ID")),
			Disposition:       strings.TrimSpace(h.Get("Disposition")),
			MIC:               strings.TrimSpace(h.Get("Received-Content-MIC")),
		}, nil
	}
	return MDN{}, errors.New("as2: the MDN has no disposition notification")
}
