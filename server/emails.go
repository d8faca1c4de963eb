package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"einvoice/mailer"
	"einvoice/signing"
	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// E-mail delivery: a creation with send_by_email=1 queues one e-mail record per address in its
// transaction; the mail job composes each message (the signed PDF, the XML when the issuer wants it)
// and hands them to the transport over one connection, recording each outcome as it comes, so that a
// crash repeats at most the messages not yet recorded. Temporary failures are tried again on the
// retry schedule, permanent ones mark the record failed. Returned mail (a delivery status
// notification, from the bounce listener or the IMAP mailbox) marks the record returned and schedules
// it again. An image in the HTML part marks it read.

const (
	jobEmails  = "emails"
	jobBounces = "bounces"
)

// MailConfig is the [mail] section.
type MailConfig struct {
	Transport     string            `toml:"transport"`  // smtp or outbox; empty: outbox in test mode, smtp otherwise
	OutboxDir     string            `toml:"outbox_dir"` // the outbox transport's folder
	FromAddress   string            `toml:"from_address"`
	FromName      string            `toml:"from_name"`
	ReplyTo       string            `toml:"reply_to"`
	ReturnPath    string            `toml:"return_path"` // where returned mail goes, tagged per message; empty: from_address
	Interval      time.Duration     `toml:"interval"`
	Batch         int               `toml:"batch"`
	RetrySchedule []time.Duration   `toml:"retry_schedule"`
	SMTP          mailer.SMTPConfig `toml:"smtp"`
	Bounces       BouncesConfig     `toml:"bounces"`
}

// BouncesConfig is the [mail.bounces] section: where returned mail is read.
type BouncesConfig struct {
	Listen            string        `toml:"listen"`   // an SMTP listener for returned mail; empty: none
	MaxSize           int64         `toml:"max_size"` // largest returned message read
	Interval          time.Duration `toml:"interval"` // how often the IMAP mailbox is read
	mailer.IMAPConfig               // the mailbox returned mail lands in; no imap_host: none
}

// DefaultMail is the default [mail] section.
func DefaultMail() MailConfig {
	h := time.Hour
	return MailConfig{
		FromAddress: "faturas@localhost", Interval: 5 * time.Second, Batch: 100,
		RetrySchedule: []time.Duration{5 * time.Minute, 30 * time.Minute, 2 * h, 6 * h, 24 * h, 48 * h},
		SMTP:          mailer.SMTPConfig{Port: 587, TLS: "starttls", Timeout: 30 * time.Second},
		Bounces:       BouncesConfig{MaxSize: 10 << 20, Interval: 5 * time.Minute, IMAPConfig: mailer.IMAPConfig{Port: 993, TLS: "tls", Mailbox: "INBOX"}},
	}
}

// mailTransport is the configured transport: the outbox folder in test mode unless told otherwise.
func (s *Server) mailTransport() (mailer.Transport, error) {
	kind := s.cfg.Mail.Transport
	if kind == "" {
		kind = "smtp"
		if s.cfg.TestMode() {
			kind = "outbox"
		}
	}
	switch kind {
	case "outbox":
		if s.cfg.Mail.OutboxDir == "" {
			return nil, errors.New("mail.outbox_dir is not set")
		}
		return mailer.Outbox{Dir: s.cfg.Mail.OutboxDir}, nil
	case "smtp":
		return mailer.NewSMTP(s.cfg.Mail.SMTP)
	}
	return nil, fmt.Errorf("mail.transport must be smtp or outbox, not %q", kind)
}

// returnPath is the base of every message's envelope sender.
func (s *Server) returnPath() string {
	if s.cfg.Mail.ReturnPath != "" {
		return s.cfg.Mail.ReturnPath
	}
	return s.cfg.Mail.FromAddress
}

// openToken is a message's open-tracking token: only this installation can make it from the
// Message-ID, and the store keeps only its hash.
func (w *Workflow) openToken(messageID string) string {
	return mailer.TokenFromMAC(w.store.MAC("email open", []byte(messageID)))
}

// bounceTag names an e-mail record in its return path: e<public id>, so that returned mail finds it,
// while the address tells its readers nothing and no one can make the tag of another record.
func bounceTag(e store.Email) string { return "e" + e.PublicID }

// emailOfTag reads a bounce tag back; 0 when it is not one of ours.
func (s *Server) emailOfTag(tag string) int64 {
	public, ok := strings.CutPrefix(tag, "e")
	id, err := s.store.ParsePublicID(store.KindEmail, public)
	if !ok || err != nil {
		return 0
	}
	return id
}

// queueEmails adds the e-mail records of a document created or edited with send_by_email=1.
func (w *Workflow) queueEmails(tx *store.Tx, d *store.Document, lang string) error {
	domain := mailer.Domain(w.cfg.Mail.FromAddress)
	emails := make([]store.NewEmail, len(d.EmailAddresses))
	for i, addr := range d.EmailAddresses {
		id := mailer.NewMessageID(domain)
		emails[i] = store.NewEmail{Address: addr, MessageID: id, OpenTokenHash: mailer.TokenHash(w.openToken(id))}
	}
	return tx.QueueEmails(d.ID, d.IssuerID, lang, emails)
}

// maxResendAddresses bounds the addresses of one resending, as additional_emails is bounded.
const maxResendAddresses = 20

// ResendEmails sends a document the entity issued by e-mail again, in the language it was issued in:
// to the addresses given, or, when none are, to the addresses of its creation (e381 when it had
// none). Each e-mail queued has its history entry. It returns the addresses.
func (w *Workflow) ResendEmails(ctx context.Context, issuerID int64, ref string, addresses []string) ([]string, error) {
	if len(addresses) > maxResendAddresses {
		return nil, fieldError("addresses", CodeInvalidValue)
	}
	var to []string
	for _, a := range addresses {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if len(a) > 254 || !reEmail.MatchString(a) {
			return nil, fieldError("addresses", CodeInvalidValue)
		}
		if !slices.ContainsFunc(to, func(b string) bool { return strings.EqualFold(a, b) }) {
			to = append(to, a)
		}
	}
	d, err := w.issuedDocument(ctx, issuerID, ref)
	if err != nil {
		return nil, err
	}
	if len(to) == 0 {
		to = d.EmailAddresses
	}
	if len(to) == 0 {
		return nil, fieldError("addresses", CodeNoAddresses)
	}
	_, lang, err := decodeDocumentData(d.Data)
	if err != nil {
		return nil, err
	}
	again := d
	again.EmailAddresses = to
	if err := w.store.Update(ctx, func(tx *store.Tx) error { return w.queueEmails(tx, &again, lang) }); err != nil {
		return nil, err
	}
	w.jobs.trigger(jobEmails)
	return to, nil
}

// emailFlush bounds how many outcomes wait before they are written, and for how long.
const (
	emailFlushCount = 25
	emailFlushEvery = 250 * time.Millisecond
)

// deliverEmails claims every due e-mail, a batch at a time, and sends it.
func (s *Server) deliverEmails(ctx context.Context) error {
	for ctx.Err() == nil {
		now, leaseUntil := s.claimTimes()
		due, err := s.store.ClaimEmails(ctx, now, leaseUntil, s.cfg.Mail.Batch)
		if err != nil || len(due) == 0 {
			return err
		}
		transport, err := s.mailTransport()
		if err != nil {
			// A configuration problem: every e-mail waits for its next try, with the reason to see.
			outcomes := make([]store.EmailOutcome, len(due))
			for i, e := range due {
				outcomes[i] = store.EmailOutcome{ID: e.ID, Error: err.Error(), NextAt: s.nextEmailAttempt(e.Attempts)}
			}
			return errors.Join(err, s.store.RecordEmails(context.WithoutCancel(ctx), outcomes))
		}
		var outcomes []store.EmailOutcome
		var msgs []*mailer.Message
		var sending []store.Email
		docs := map[mailKey]*mailDocument{} // a document sent to several addresses is read once
		for _, e := range due {
			m, err := s.composeEmail(ctx, e, docs)
			if err != nil {
				outcomes = append(outcomes, s.emailOutcome(e, fmt.Errorf("composing the message: %w", err)))
				continue
			}
			msgs, sending = append(msgs, m), append(sending, e)
		}
		lastFlush := time.Now()
		var flushErr error
		flush := func() {
			if len(outcomes) > 0 && flushErr == nil {
				// Written even when the job is being stopped: what was sent stays sent.
				flushErr = s.store.RecordEmails(context.WithoutCancel(ctx), outcomes)
				outcomes, lastFlush = nil, time.Now()
			}
		}
		transport.Send(ctx, msgs, func(i int, err error) {
			outcomes = append(outcomes, s.emailOutcome(sending[i], err))
			if len(outcomes) >= emailFlushCount || time.Since(lastFlush) >= emailFlushEvery {
				flush()
			}
		})
		flush()
		if flushErr != nil {
			return flushErr
		}
		if len(due) < s.cfg.Mail.Batch {
			return nil
		}
	}
	return ctx.Err()
}

// emailOutcome is what a sending's result means for its record.
func (s *Server) emailOutcome(e store.Email, err error) store.EmailOutcome {
	o := store.EmailOutcome{ID: e.ID}
	switch {
	case err == nil:
		o.Sent = true
	case mailer.Permanent(err):
		o.Error = err.Error()
	default:
		o.Error = err.Error()
		o.NextAt = s.nextEmailAttempt(e.Attempts)
	}
	return o
}

// nextEmailAttempt is when the next try after n tries goes; empty after the last.
func (s *Server) nextEmailAttempt(n int) string {
	schedule := s.cfg.Mail.RetrySchedule
	if n < 0 || n >= len(schedule) {
		return ""
	}
	return s.now().Add(schedule[n]).UTC().Format(store.TimeLayout)
}

// mailKey is a document in one language: what its messages share.
type mailKey struct {
	document int64
	lang     string
}

// mailDocument is what every message of one document says and carries.
type mailDocument struct {
	from        mailer.Sender
	document    mailer.Document
	attachments []mailer.Attachment
}

// composeEmail writes the message of one record, reading its document's parts on first use.
func (s *Server) composeEmail(ctx context.Context, e store.Email, docs map[mailKey]*mailDocument) (*mailer.Message, error) {
	key := mailKey{e.DocumentID, e.Lang}
	md := docs[key]
	if md == nil {
		var err error
		if md, err = s.mailDocument(ctx, key); err != nil {
			return nil, err
		}
		docs[key] = md
	}
	return mailer.Compose(mailer.Letter{
		Words: mailWords(e.Lang), From: md.from, To: e.Address, Document: md.document, Attachments: md.attachments,
		MessageID:   e.MessageID,
		ReturnPath:  mailer.BounceAddress(s.returnPath(), bounceTag(e)),
		TrackingURL: s.baseURL() + "/public/emails/" + s.openToken(e.MessageID) + ".gif",
		Date:        s.now(),
	})
}

// mailDocument reads what a document's messages share: the sender, what they tell of the document, the
// signed PDF and, when the issuer sends it too, the XML.
func (s *Server) mailDocument(ctx context.Context, key mailKey) (*mailDocument, error) {
	d, err := s.store.DocumentByID(ctx, key.document)
	if err != nil {
		return nil, err
	}
	issuer, err := s.store.EntityByID(ctx, d.IssuerID)
	if err != nil {
		return nil, err
	}
	m, _, err := decodeDocumentData(d.Data)
	if err != nil {
		return nil, err
	}
	pdf, err := s.documentPDF(ctx, d)
	if err != nil {
		return nil, err
	}
	_, pdfErr := signing.VerifyPDF(pdf.Content)
	md := &mailDocument{
		from: mailer.Sender{
			Name:    cmp.Or(issuer.Mail.FromName, cmp.Or(s.cfg.Mail.FromName, issuer.Name)),
			Address: cmp.Or(issuer.Mail.FromAddress, s.cfg.Mail.FromAddress),
			ReplyTo: cmp.Or(issuer.Mail.ReplyTo, s.cfg.Mail.ReplyTo),
		},
		document: mailer.Document{
			Title: typeFactOf(d.TypeCode, key.lang).Description, Number: d.Number, IssueDate: d.EmissionDate, DueDate: m.DueDate,
			Issuer: issuer.Name, IssuerNIF: issuer.Country + issuer.NIF, Customer: d.Customer.Name, Payable: d.PayableAmount,
			Currency: d.Currency, Signed: pdfErr == nil, HasXML: issuer.Mail.AttachXML, ATCUD: m.ATCUD(),
		},
		attachments: []mailer.Attachment{{Name: cleanFileName(pdf.Name, pdf.MIME), MIME: "application/pdf", Content: pdf.Content}},
	}
	if issuer.Mail.AttachXML {
		xml, err := s.store.DocumentFileByRole(ctx, d.ID, store.FileXML)
		if err != nil {
			return nil, err
		}
		md.attachments = append(md.attachments, mailer.Attachment{Name: cleanFileName(xml.Name, xml.MIME), MIME: "application/xml", Content: xml.Content})
	}
	return md, nil
}

// trackingGIF is a transparent 1×1 image.
var trackingGIF = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x21\xf9\x04\x01\x00\x00\x00\x00" +
	"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b")

// emailOpened is GET /public/emails/{token}.gif: the first fetch marks the e-mail read. Every request
// gets the same image, known token or not, so the address tells nothing.
func (s *Server) emailOpened(c echo.Context) error {
	if err := s.EmailOpened(c.Request().Context(), strings.TrimSuffix(c.Param("token"), ".gif")); err != nil {
		s.log.Error("marking an e-mail read", "err", err)
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate, private")
	h.Set("Referrer-Policy", "no-referrer")
	return c.Blob(http.StatusOK, "image/gif", trackingGIF)
}

// EmailOpened records that the e-mail of an open-tracking token was read (the first time counts). An
// unknown token changes nothing.
func (w *Workflow) EmailOpened(ctx context.Context, token string) error {
	if len(token) > 64 {
		return nil
	}
	_, err := w.store.MarkEmailOpened(ctx, mailer.TokenHash(token))
	return err
}

// HandleBounce reads one message that came back to a return path: a delivery status notification
// that says one of our e-mails failed marks its record returned and schedules it again (failed for
// good after the last try). Anything else is ignored.
func (s *Server) HandleBounce(ctx context.Context, rcpts []string, raw []byte) error {
	report, err := mailer.ParseDSN(raw)
	if err != nil {
		s.log.Debug("returned mail: not a delivery status notification", "err", err)
		return nil
	}
	var failed *mailer.RecipientStatus
	for i := range report.Recipients {
		if report.Recipients[i].Failed() {
			failed = &report.Recipients[i]
			break
		}
	}
	if failed == nil {
		return nil // delays and successes change nothing
	}
	e, err := s.bouncedEmail(ctx, append(rcpts, report.To...), report.MessageID)
	if errors.Is(err, store.ErrNotFound) {
		s.log.Info("returned mail for no known e-mail", "message_id", report.MessageID)
		return nil
	}
	if err != nil {
		return err
	}
	if e.State != store.EmailSent {
		return nil // already returned, failed or queued again: this report repeats what is known
	}
	reason := strings.TrimSpace(failed.Status + " " + failed.Diagnostic)
	o := store.EmailOutcome{ID: e.ID, Returned: true, Error: "returned: " + reason, NextAt: s.nextEmailAttempt(e.Attempts - 1)}
	if err := s.store.RecordEmails(ctx, []store.EmailOutcome{o}); err != nil {
		return err
	}
	s.log.Info("e-mail returned", "email", e.ID, "address", e.Address, "status", failed.Status, "retry_at", o.NextAt)
	return nil
}

// bouncedEmail finds the record a report is about: by the tag in the address it came back to, else by
// the Message-ID it quotes.
func (s *Server) bouncedEmail(ctx context.Context, addresses []string, messageID string) (store.Email, error) {
	base := s.returnPath()
	for _, a := range addresses {
		if tag, ok := mailer.BounceTag(a, base); ok {
			if id := s.emailOfTag(tag); id != 0 {
				return s.store.EmailByID(ctx, id)
			}
		}
	}
	if messageID == "" {
		return store.Email{}, store.ErrNotFound
	}
	return s.store.EmailByMessageID(ctx, messageID)
}

// listenBounces starts the SMTP listener for returned mail.
func (s *Server) listenBounces(addr string) (*mailer.BounceListener, error) {
	return mailer.ListenBounces(addr, mailer.Domain(s.returnPath()), s.cfg.Mail.Bounces.MaxSize, s.HandleBounce, s.log)
}

// readBounceMailbox reads returned mail from the configured IMAP mailbox.
func (s *Server) readBounceMailbox(ctx context.Context) error {
	n, err := mailer.FetchBounces(ctx, s.cfg.Mail.Bounces.IMAPConfig, s.cfg.Mail.Bounces.MaxSize, s.HandleBounce)
	if n > 0 {
		s.log.Info("returned mail read", "messages", n)
	}
	return err
}
