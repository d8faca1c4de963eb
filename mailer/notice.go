package mailer

import (
	"fmt"
	"time"

	"github.com/wneessen/go-mail"
)

// Notice is a plain-text message about the service itself (a connection request's confirmation and
// changes), carrying no document.
type Notice struct {
	From      Sender
	To        string
	Subject   string
	Body      string
	Lang      string
	MessageID string // without the angle brackets
	Date      time.Time
}

// ComposeNotice writes a notice as a message.
func ComposeNotice(n Notice) (*Message, error) {
	m := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := m.FromFormat(n.From.Name, n.From.Address); err != nil {
		return nil, fmt.Errorf("sender %q: %w", n.From.Address, err)
	}
	if err := m.To(n.To); err != nil {
		return nil, fmt.Errorf("recipient %q: %w", n.To, err)
	}
	if n.From.ReplyTo != "" {
		if err := m.ReplyTo(n.From.ReplyTo); err != nil {
			return nil, fmt.Errorf("reply-to %q: %w", n.From.ReplyTo, err)
		}
	}
	if err := m.EnvelopeFrom(n.From.Address); err != nil {
		return nil, fmt.Errorf("return path %q: %w", n.From.Address, err)
	}
	m.Subject(n.Subject)
	m.SetMessageIDWithValue(n.MessageID)
	m.SetDateWithValue(n.Date)
	m.SetUserAgent("einvoice")
	m.SetGenHeader(mail.HeaderContentLang, n.Lang)
	m.SetBodyString(mail.TypeTextPlain, n.Body)
	return &Message{msg: m, ID: n.MessageID, To: n.To, Subject: n.Subject, ReturnPath: n.From.Address}, nil
}
