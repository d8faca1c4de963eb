package mailer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-smtp"
)

// BounceHandler takes one message that came back: the addresses it was delivered to (the SMTP
// envelope, when known) and its bytes. An error leaves the message to be read again.
type BounceHandler func(ctx context.Context, rcpts []string, raw []byte) error

// BounceListener is a small SMTP server that accepts returned mail (the MX of the return path's domain
// points at it, or the MTA relays bounces to it). Messages bigger than the limit are refused.
type BounceListener struct {
	srv *smtp.Server
	ln  net.Listener
}

// ListenBounces starts the listener on addr.
func ListenBounces(addr, domain string, maxSize int64, handle BounceHandler, log *slog.Logger) (*BounceListener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &bounceSession{handle: handle}, nil
	}))
	srv.Domain = domain
	srv.MaxMessageBytes = maxSize
	srv.MaxRecipients = 50
	srv.ReadTimeout, srv.WriteTimeout = time.Minute, time.Minute
	srv.ErrorLog = slogLogger{log}
	go srv.Serve(ln)
	return &BounceListener{srv: srv, ln: ln}, nil
}

// Addr is the address the listener accepts on.
func (l *BounceListener) Addr() string { return l.ln.Addr().String() }

// Close stops the listener and its sessions.
func (l *BounceListener) Close() error { return l.srv.Close() }

// bounceSession takes one message at a time: anyone may send, the handler decides what it is.
type bounceSession struct {
	handle BounceHandler
	rcpts  []string
}

func (s *bounceSession) Reset()                               { s.rcpts = nil }
func (s *bounceSession) Logout() error                        { return nil }
func (s *bounceSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *bounceSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.rcpts = append(s.rcpts, to)
	return nil
}

func (s *bounceSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.handle(ctx, s.rcpts, raw); err != nil {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	return nil
}

// slogLogger gives go-smtp's errors to the service's log.
type slogLogger struct{ log *slog.Logger }

func (l slogLogger) Printf(format string, v ...any) {
	l.log.Warn("bounce listener: " + fmt.Sprintf(format, v...))
}
func (l slogLogger) Println(v ...any) { l.log.Warn("bounce listener: " + fmt.Sprint(v...)) }

// IMAPConfig is where returned mail is read from when it lands in a mailbox.
type IMAPConfig struct {
	Host     string `toml:"imap_host"`
	Port     int    `toml:"imap_port"`
	Username string `toml:"imap_username"`
	Password string `toml:"imap_password"`
	TLS      string `toml:"imap_tls"` // tls (port 993), starttls, none
	Mailbox  string `toml:"imap_mailbox"`
	Insecure bool   `toml:"imap_insecure_skip_verify"`
}

// FetchBounces reads the unseen messages of the mailbox, gives each to handle and marks it seen once
// handled. Messages over maxSize are marked seen unread. It returns how many it handled.
func FetchBounces(ctx context.Context, cfg IMAPConfig, maxSize int64, handle BounceHandler) (int, error) {
	c, err := dialIMAP(cfg)
	if err != nil {
		return 0, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	defer c.Close()
	if err := c.Login(cfg.Username, cfg.Password).Wait(); err != nil {
		return 0, fmt.Errorf("IMAP login: %w", err)
	}
	defer c.Logout()
	mailbox := cfg.Mailbox
	if mailbox == "" {
		mailbox = "INBOX"
	}
	if _, err := c.Select(mailbox, nil).Wait(); err != nil {
		return 0, fmt.Errorf("IMAP select %s: %w", mailbox, err)
	}
	found, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, nil).Wait()
	if err != nil {
		return 0, fmt.Errorf("IMAP search: %w", err)
	}
	handled := 0
	for _, uid := range found.AllUIDs() {
		if ctx.Err() != nil {
			return handled, ctx.Err()
		}
		body := &imap.FetchItemBodySection{Peek: true}
		msgs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{RFC822Size: true, BodySection: []*imap.FetchItemBodySection{body}}).Collect()
		if err != nil {
			return handled, fmt.Errorf("IMAP fetch: %w", err)
		}
		if len(msgs) == 1 && msgs[0].RFC822Size <= maxSize {
			if err := handle(ctx, nil, msgs[0].FindBodySection(body)); err != nil {
				return handled, err
			}
			handled++
		}
		seen := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}
		if err := c.Store(imap.UIDSetNum(uid), seen, nil).Close(); err != nil {
			return handled, fmt.Errorf("IMAP store: %w", err)
		}
	}
	return handled, nil
}

func dialIMAP(cfg IMAPConfig) (*imapclient.Client, error) {
	port := cfg.Port
	if port == 0 {
		port = map[string]int{"tls": 993}[cfg.TLS]
		if port == 0 {
			port = 143
		}
	}
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(port))
	opts := &imapclient.Options{Dialer: &net.Dialer{Timeout: 30 * time.Second},
		TLSConfig: &tls.Config{ServerName: cfg.Host, InsecureSkipVerify: cfg.Insecure}}
	switch cfg.TLS {
	case "tls", "":
		return imapclient.DialTLS(addr, opts)
	case "starttls":
		return imapclient.DialStartTLS(addr, opts)
	case "none":
		return imapclient.DialInsecure(addr, opts)
	}
	return nil, errors.New("mail.bounces.imap_tls must be tls, starttls or none")
}
