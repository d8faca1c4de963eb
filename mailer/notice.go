package mailer

import (
	"fmt"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
)

// Notice is a short plain-text message to an entity's own people (a document was received, one was
// rejected): no attachment, no tracking.
type Notice struct {
	Lang       string // for Content-Language
	From       Sender
	To         []string
	CC         []string
	Subject    string
	Body       string
	MessageID  string // without the angle brackets
	ReturnPath string // the envelope sender; empty: From
	Date       time.Time
}

// ComposeNotice writes a notice as a message.
func ComposeNotice(n Notice) (*Message, error) {
	m := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := m.FromFormat(n.From.Name, n.From.Address); err != nil {
		return nil, fmt.Errorf("sender %q: %w", n.From.Address, err)
	}
	if err := m.To(n.To...); err != nil {
		return nil, fmt.Errorf("recipients %q: %w", n.To, err)
	}
	if len(n.CC) > 0 {
		if err := m.Cc(n.CC...); err != nil {
			return nil, fmt.Errorf("copies %q: %w", n.CC, err)
		}
	}
	if n.From.ReplyTo != "" {
		if err := m.ReplyTo(n.From.ReplyTo); err != nil {
			return nil, fmt.Errorf("reply-to %q: %w", n.From.ReplyTo, err)
		}
	}
	returnPath := n.ReturnPath
	if returnPath == "" {
		returnPath = n.From.Address
	}
	if err := m.EnvelopeFrom(returnPath); err != nil {
		return nil, fmt.Errorf("return path %q: %w", returnPath, err)
	}
	m.Subject(n.Subject)
	m.SetMessageIDWithValue(n.MessageID)
	m.SetDateWithValue(n.Date)
	m.SetUserAgent("einvoice")
	m.SetGenHeader(mail.HeaderContentLang, n.Lang)
	m.SetBodyString(mail.TypeTextPlain, n.Body)
	return &Message{msg: m, ID: n.MessageID, To: strings.Join(append(append([]string{}, n.To...), n.CC...), ", "), Subject: n.Subject,
		ReturnPath: returnPath}, nil
}
