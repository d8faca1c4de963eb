package mailer

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
)

// Transport sends messages. Send takes them in order and reports each outcome as soon as it is known,
// so that the caller can record it before the next one goes: a crash in the middle repeats at most the
// message under way.
type Transport interface {
	Send(ctx context.Context, msgs []*Message, done func(i int, err error))
}

// SMTPConfig is the [mail.smtp] section: the server the installation sends through.
type SMTPConfig struct {
	Host     string        `toml:"host"`
	Port     int           `toml:"port"`
	Username string        `toml:"username"`
	Password string        `toml:"password"`
	TLS      string        `toml:"tls"` // starttls (required), opportunistic, tls (implicit, port 465), none
	Timeout  time.Duration `toml:"timeout"`
	HELO     string        `toml:"helo"`
	// Insecure accepts any certificate of the server (tests and self-signed relays only).
	Insecure bool `toml:"insecure_skip_verify"`
}

// SMTP sends through an SMTP server with go-mail: one connection for a whole batch, opened again if it
// drops, authentication when a username is set.
type SMTP struct {
	cfg SMTPConfig
}

// NewSMTP checks the settings of an SMTP transport.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if cfg.Host == "" {
		return nil, errors.New("mail.smtp.host is not set")
	}
	switch cfg.TLS {
	case "starttls", "opportunistic", "tls", "none":
	default:
		return nil, fmt.Errorf("mail.smtp.tls must be starttls, opportunistic, tls or none, not %q", cfg.TLS)
	}
	return &SMTP{cfg: cfg}, nil
}

func (t *SMTP) client() (*mail.Client, error) {
	opts := []mail.Option{mail.WithTimeout(t.cfg.Timeout), mail.WithoutNoop()}
	if t.cfg.Port > 0 {
		opts = append(opts, mail.WithPort(t.cfg.Port))
	}
	switch t.cfg.TLS {
	case "starttls":
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	case "opportunistic":
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	case "tls":
		opts = append(opts, mail.WithSSL())
	case "none":
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	}
	if t.cfg.Insecure {
		opts = append(opts, mail.WithTLSConfig(&tls.Config{InsecureSkipVerify: true, ServerName: t.cfg.Host}))
	}
	if t.cfg.HELO != "" {
		opts = append(opts, mail.WithHELO(t.cfg.HELO))
	}
	if t.cfg.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(t.cfg.Username), mail.WithPassword(t.cfg.Password))
	}
	return mail.NewClient(t.cfg.Host, opts...)
}

// Send sends the messages over one connection, dialled again once when it breaks.
func (t *SMTP) Send(ctx context.Context, msgs []*Message, done func(i int, err error)) {
	c, err := t.client()
	if err != nil {
		for i := range msgs {
			done(i, err)
		}
		return
	}
	connected := false
	defer func() {
		if connected {
			c.Close()
		}
	}()
	for i, m := range msgs {
		if ctx.Err() != nil {
			return // not sent: still due
		}
		for try := 0; ; try++ {
			if !connected {
				if err = c.DialWithContext(ctx); err != nil {
					break
				}
				connected = true
			}
			err = c.Send(m.msg)
			if m.msg.IsDelivered() {
				err = nil // accepted; a failure after it (RSET) is the connection's, not the message's
			}
			if err == nil || !connectionLost(err) || try > 0 {
				break
			}
			c.Close()
			connected = false
		}
		if err != nil && connectionLost(err) && connected {
			c.Close()
			connected = false
		}
		done(i, err)
	}
}

// connectionLost tells a broken connection from an answer of the server about the message.
func connectionLost(err error) bool {
	var se *mail.SendError
	if !errors.As(err, &se) {
		return true
	}
	return se.Reason == mail.ErrConnCheck || se.ErrorCode() == 0
}

// Permanent tells whether a sending error is final (a 5xx answer: the address or the message is
// refused) rather than worth another try (a 4xx answer, a connection that failed).
func Permanent(err error) bool {
	var se *mail.SendError
	if errors.As(err, &se) {
		return !se.IsTemp() && se.ErrorCode() >= 500
	}
	return false
}

// Outbox is the demo transport: each message becomes an .eml file in a folder, as an MTA would have
// delivered it (Return-Path first).
type Outbox struct {
	Dir string
}

// Send writes each message to its file.
func (o Outbox) Send(ctx context.Context, msgs []*Message, done func(i int, err error)) {
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		for i := range msgs {
			done(i, err)
		}
		return
	}
	for i, m := range msgs {
		if ctx.Err() != nil {
			return
		}
		done(i, o.write(m))
	}
}

func (o Outbox) write(m *Message) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Return-Path: <%s>\r\nDelivered-To: %s\r\n", m.ReturnPath, m.To)
	if _, err := m.WriteTo(&b); err != nil {
		return err
	}
	name := time.Now().UTC().Format("20060102T150405") + "-" + safeName(m.ID) + ".eml"
	tmp := filepath.Join(o.Dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(o.Dir, name))
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
