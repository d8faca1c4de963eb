// Package mailer writes and sends the e-mails of einvoice: the message that carries a document to its
// customer (HTML and plain text from embedded templates, Portuguese or English, the signed PDF
// attached), the SMTP transport (go-mail) and the demo transport that writes .eml files, open-tracking
// tokens, and the reading of returned mail (delivery status notifications, RFC 3464) from an SMTP
// listener or an IMAP mailbox. It knows nothing of HTTP or the store.
package mailer

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	htmltemplate "html/template"
	"io"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/wneessen/go-mail"
)

// Letter is what one message says and carries.
type Letter struct {
	Words       Words // in the message's language
	From        Sender
	To          string
	Document    Document
	Attachments []Attachment
	MessageID   string // without the angle brackets
	ReturnPath  string // the envelope sender, where returned mail goes
	TrackingURL string // the open-tracking image; empty: none
	Date        time.Time
}

// Sender is the From and Reply-To of a message.
type Sender struct {
	Name    string
	Address string
	ReplyTo string
}

// Document is what the message tells of the document it carries.
type Document struct {
	Title     string // the document's kind in the message's language: "Fatura", "Credit note"
	Number    string
	IssueDate string
	DueDate   string
	Issuer    string
	IssuerNIF string // with its country prefix
	Customer  string
	Payable   string // a decimal with a point: "770.89"
	Currency  string
	Signed    bool // the PDF carries the issuer's qualified signature
	HasXML    bool // the UBL XML is attached too
	ATCUD     string
}

// Attachment is a file the message carries.
type Attachment struct {
	Name    string
	MIME    string
	Content []byte
}

// Message is a composed e-mail, ready for a transport.
type Message struct {
	msg        *mail.Msg
	ID         string // Message-ID without brackets
	To         string
	Subject    string
	ReturnPath string // the envelope sender
}

// WriteTo writes the message in RFC 5322 form.
func (m *Message) WriteTo(w io.Writer) (int64, error) { return m.msg.WriteTo(w) }

//go:embed templates
var templateFiles embed.FS

var (
	htmlTemplate = htmltemplate.Must(htmltemplate.ParseFS(templateFiles, "templates/message.html"))
	textTemplate = texttemplate.Must(texttemplate.ParseFS(templateFiles, "templates/message.txt"))
)

// templateData is what the templates see.
type templateData struct {
	L           Words
	D           Document
	Payable     string
	Footer      string
	TrackingURL string
}

// Compose writes a letter as a message: plain text with an HTML alternative, then the attachments.
func Compose(l Letter) (*Message, error) {
	lab := l.Words
	data := templateData{L: lab, D: l.Document, Payable: lab.amount(l.Document.Payable, l.Document.Currency),
		Footer: lab.footer(l.Document.Issuer), TrackingURL: l.TrackingURL}
	var text, html bytes.Buffer
	if err := textTemplate.ExecuteTemplate(&text, "message.txt", data); err != nil {
		return nil, err
	}
	if err := htmlTemplate.ExecuteTemplate(&html, "message.html", data); err != nil {
		return nil, err
	}
	subject := lab.subject(l.Document)

	m := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := m.FromFormat(l.From.Name, l.From.Address); err != nil {
		return nil, fmt.Errorf("sender %q: %w", l.From.Address, err)
	}
	if err := m.To(l.To); err != nil {
		return nil, fmt.Errorf("recipient %q: %w", l.To, err)
	}
	if l.From.ReplyTo != "" {
		if err := m.ReplyTo(l.From.ReplyTo); err != nil {
			return nil, fmt.Errorf("reply-to %q: %w", l.From.ReplyTo, err)
		}
	}
	returnPath := l.ReturnPath
	if returnPath == "" {
		returnPath = l.From.Address
	}
	if err := m.EnvelopeFrom(returnPath); err != nil {
		return nil, fmt.Errorf("return path %q: %w", returnPath, err)
	}
	m.Subject(subject)
	m.SetMessageIDWithValue(l.MessageID)
	m.SetDateWithValue(l.Date)
	m.SetUserAgent("einvoice")
	m.SetGenHeader(mail.HeaderContentLang, lab.Lang)
	m.SetBodyString(mail.TypeTextPlain, text.String())
	m.AddAlternativeString(mail.TypeTextHTML, html.String())
	for _, a := range l.Attachments {
		if err := m.AttachReader(a.Name, bytes.NewReader(a.Content), mail.WithFileContentType(mail.ContentType(a.MIME))); err != nil {
			return nil, err
		}
	}
	return &Message{msg: m, ID: l.MessageID, To: l.To, Subject: subject, ReturnPath: returnPath}, nil
}

// NewMessageID makes a Message-ID (without brackets) under domain that no one can guess.
func NewMessageID(domain string) string {
	return strings.ToLower(rand.Text()) + "@" + domain
}

// TokenHash is what the store keeps of an open-tracking token.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// TokenFromMAC turns a MAC into an open-tracking token fit for a URL path.
func TokenFromMAC(mac []byte) string { return base64.RawURLEncoding.EncodeToString(mac[:18]) }

// Domain is the domain part of an address ("localhost" when it has none).
func Domain(address string) string {
	if i := strings.LastIndexByte(address, '@'); i >= 0 && i < len(address)-1 {
		return strings.Trim(address[i+1:], "<> ")
	}
	return "localhost"
}
