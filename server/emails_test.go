package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	gosmtp "github.com/emersion/go-smtp"

	"einvoice/mailer"
	"einvoice/mailer/mailertest"
	"einvoice/signing"
	"einvoice/store"
	"einvoice/ubl/ubltest"
)

// mailEnv is a document env whose mail goes to a real SMTP server on loopback.
func mailEnv(t *testing.T, tweak ...func(*Config)) (*docEnv, *mailertest.SMTPServer) {
	t.Helper()
	smtpServer := mailertest.StartSMTP(t)
	env := newDocEnv(t, append([]func(*Config){func(c *Config) {
		c.Mail.SMTP.Host, c.Mail.SMTP.Port, c.Mail.SMTP.TLS = smtpServer.Host, smtpServer.Port, "none"
		c.Mail.FromAddress, c.Mail.ReturnPath = "faturas@einvoice.example", "bounces@einvoice.example"
		c.HTTP.PublicURL = "https://einvoice.example"
	}}, tweak...)...)
	return env, smtpServer
}

// sendMail runs the mail job once.
func (e *docEnv) sendMail() {
	e.t.Helper()
	if err := e.srv.deliverEmails(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// emailsOf reads the document's emails[] as its issuer sees them.
func (e *docEnv) emailsOf(id string) []map[string]any {
	e.t.Helper()
	doc := data(e.do("GET", "/api/v1/en/apps/documents/"+id, e.as(e.entity, ""), ""))
	var out []map[string]any
	for _, x := range doc["emails"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// emailHistory counts the document's e-mail history entries by what happened (their description key),
// checking that the API lists as many of kind email.
func (e *docEnv) emailHistory(id string) map[string]int {
	e.t.Helper()
	entries, err := e.st.History(context.Background(), e.rowID(store.KindDocument, id))
	if err != nil {
		e.t.Fatal(err)
	}
	out, total := map[string]int{}, 0
	for _, h := range entries {
		if h.Kind == "email" {
			out[h.Description]++
			total++
		}
	}
	api := e.do("GET", "/api/v1/en/apps/documents/"+id+"/history", e.as(e.entity, ""), "")
	listed := 0
	for _, x := range api.body["response"].(map[string]any)["data"].([]any) {
		if x.(map[string]any)["kind"] == "email" {
			listed++
		}
	}
	if listed != total {
		e.t.Fatalf("the API lists %d e-mail entries, the store holds %d", listed, total)
	}
	return out
}

// parsedMail is a received message read with the standard library's parsers (not go-mail's).
type parsedMail struct {
	header mail.Header
	parts  map[string][]byte // by content type
	names  map[string]string // attachment file names by content type
}

func parseMail(t *testing.T, raw []byte) parsedMail {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	p := parsedMail{header: msg.Header, parts: map[string][]byte{}, names: map[string]string{}}
	var walk func(h map[string][]string, body io.Reader)
	walk = func(h map[string][]string, body io.Reader) {
		get := func(k string) string {
			if v := h[k]; len(v) > 0 {
				return v[0]
			}
			return ""
		}
		mt, params, err := mime.ParseMediaType(get("Content-Type"))
		if err != nil {
			t.Fatalf("content type: %v", err)
		}
		if strings.HasPrefix(mt, "multipart/") {
			r := multipart.NewReader(body, params["boundary"])
			for {
				part, err := r.NextRawPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				walk(part.Header, part)
			}
		}
		switch strings.ToLower(get("Content-Transfer-Encoding")) {
		case "base64":
			body = base64.NewDecoder(base64.StdEncoding, body)
		case "quoted-printable":
			body = quotedprintable.NewReader(body)
		}
		content, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		p.parts[mt] = content
		if _, dp, err := mime.ParseMediaType(get("Content-Disposition")); err == nil {
			p.names[mt] = dp["filename"]
		}
	}
	walk(msg.Header, msg.Body)
	return p
}

func (p parsedMail) subject(t *testing.T) string {
	s, err := new(mime.WordDecoder).DecodeHeader(p.header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var trackingImage = regexp.MustCompile(`src="https://einvoice\.example(/public/emails/[^"]+)"`)

// After a 201 with send_by_email=1 the mail job sends the signed PDF to each address (the customer's
// and the additional ones, once each) over one connection, in the call's language; the records show it,
// and the tracking image marks it read once.
func TestEmailCarriesTheSignedPDF(t *testing.T) {
	env, smtpServer := mailEnv(t)
	env.giveSeal(issuerSeal())
	extra := `, "send_by_email": 1, "additional_emails": ["contabilidade@cliente.example", "COMPRAS@cliente.example"]`
	r := env.do("POST", "/api/v1/pt/apps/documents", env.as(env.entity, "application/json"), invoiceJSON("M1", env.customer.NIF, extra))
	id := created(t, r)
	if emails := env.emailsOf(id); len(emails) != 2 || emails[0]["b_sent"] != false || emails[0]["created_at"] != nil || emails[0]["state"] != "queued" {
		t.Fatalf("queued records: %v", emails)
	}
	if got := smtpServer.Received(); len(got) != 0 {
		t.Fatal("mail sent inside the request")
	}
	env.sendMail()
	got := smtpServer.Received()
	if len(got) != 2 || smtpServer.Connections() != 1 {
		t.Fatalf("%d messages over %d connections", len(got), smtpServer.Connections())
	}
	pdf := env.file(id, "pdf")
	if pdfSignature(t, pdf) != "PAdES" {
		t.Fatal("the stored PDF is not signed")
	}
	emails := env.emailsOf(id)
	byAddress := map[string]map[string]any{}
	for _, e := range emails {
		byAddress[e["address"].(map[string]any)["emails"].([]any)[0].(string)] = e
	}
	for _, rcv := range got {
		m := parseMail(t, rcv.Data)
		to := rcv.To[0]
		record := byAddress[to]
		if record == nil || record["b_sent"] != true || record["created_at"] == nil || record["state"] != "sent" {
			t.Fatalf("record of %s: %v", to, record)
		}
		if !bytes.Equal(m.parts["application/pdf"], pdf) || m.names["application/pdf"] != "M1.pdf" {
			t.Fatalf("%s: the attachment is not the stored signed PDF", to)
		}
		from, _ := mail.ParseAddress(m.header.Get("From"))
		if from.Address != "faturas@einvoice.example" || from.Name != env.entity.Name || m.subject(t) != "Fatura M1 de "+env.entity.Name {
			t.Fatalf("headers: From %q, Subject %q", m.header.Get("From"), m.subject(t))
		}
		if !strings.HasPrefix(rcv.From, "bounces+e") || !strings.HasSuffix(rcv.From, "@einvoice.example") {
			t.Fatalf("envelope sender %q", rcv.From)
		}
		if m.header.Get("Message-Id") == "" || !strings.Contains(string(m.parts["text/plain"]), "Valor a pagar") ||
			!strings.Contains(string(m.parts["text/html"]), "Valor a pagar") {
			t.Fatal("Message-ID or the Portuguese text is missing")
		}
	}
	if _, ok := byAddress["compras@cliente.example"]; !ok {
		t.Fatalf("the customer's address: %v", byAddress) // COMPRAS@ repeats it in another case
	}

	// The tracking image marks the record read, once; any other token gets the same image.
	m := parseMail(t, got[0].Data)
	path := trackingImage.FindStringSubmatch(string(m.parts["text/html"]))
	if path == nil {
		t.Fatal("no tracking image")
	}
	img := env.do("GET", path[1], nil, "")
	if img.status != 200 || img.header.Get("Content-Type") != "image/gif" {
		t.Fatalf("tracking image: %d %s", img.status, img.header.Get("Content-Type"))
	}
	opened := func() (n int, at []string) {
		for _, e := range env.emailsOf(id) {
			if e["b_open"] == true {
				n++
				at = append(at, e["opened_at"].(string))
			}
		}
		return
	}
	n, first := opened()
	if n != 1 {
		t.Fatalf("%d records read", n)
	}
	env.srv.now = func() time.Time { return time.Now().Add(time.Hour) }
	env.do("GET", path[1], nil, "")
	if fake := env.do("GET", "/public/emails/not-a-token.gif", nil, ""); fake.status != 200 || fake.raw != img.raw {
		t.Fatal("an unknown token is answered differently")
	}
	if n, again := opened(); n != 1 || again[0] != first[0] {
		t.Fatalf("read again: %d %v %v", n, first, again)
	}
	if h := env.emailHistory(id); h["email_queued"] != 2 || h["email_sent"] != 2 || h["email_opened"] != 1 {
		t.Fatalf("history: %v", h)
	}
}

// An /en call gets its mail in English; an issuer that wants it sends the XML too, from its own
// sender.
func TestEmailInEnglishWithTheXML(t *testing.T) {
	env, smtpServer := mailEnv(t)
	yes, name, from, reply := true, "Faturação Fornecedor", "faturas@fornecedor.example", "contas@fornecedor.example"
	env.st.UpdateEntity(context.Background(), env.entity.ID, store.EntityChanges{MailAttachXML: &yes, MailFromName: &name, MailFromAddress: &from, MailReplyTo: &reply})
	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("M2", env.customer.NIF, `, "send_by_email": "1"`)))
	env.sendMail()
	got := smtpServer.Received()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	m := parseMail(t, got[0].Data)
	sender, _ := mail.ParseAddress(m.header.Get("From"))
	if m.subject(t) != "Invoice M2 from "+env.entity.Name || sender.Name != name || sender.Address != from ||
		m.header.Get("Reply-To") != "<"+reply+">" || !strings.Contains(string(m.parts["text/plain"]), "Amount due") {
		t.Fatalf("headers %v", m.header)
	}
	if !bytes.Equal(m.parts["application/xml"], env.file(id, "xml")) || !bytes.Equal(m.parts["application/pdf"], env.file(id, "pdf")) {
		t.Fatal("the attachments are not the stored files")
	}
	if pdfSignature(t, m.parts["application/pdf"]) != "none" {
		t.Fatal("no seal, yet the PDF is signed")
	}
}

// A 4xx answer is tried again on the schedule; a 5xx marks the address failed.
func TestEmailRetriesAndFailures(t *testing.T) {
	env, smtpServer := mailEnv(t)
	smtpServer.Answer(func(rcpt string, attempt int) *gosmtp.SMTPError {
		switch {
		case strings.HasPrefix(rcpt, "busy@") && attempt == 0:
			return &gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: "try later"}
		case strings.HasPrefix(rcpt, "nobody@"):
			return &gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
		}
		return nil
	})
	extra := `, "send_by_email": 1, "additional_emails": ["busy@cliente.example", "nobody@cliente.example"]`
	json := strings.Replace(invoiceJSON("M3", env.customer.NIF, extra), `"email": "compras@cliente.example"`, `"email": ""`, 1)
	id := created(t, env.post("/documents", env.entity, "application/json", json))
	env.sendMail()
	states := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, e := range env.emailsOf(id) {
			out[e["address"].(map[string]any)["emails"].([]any)[0].(string)] = e
		}
		return out
	}
	s := states()
	if s["busy@cliente.example"]["state"] != "queued" || s["nobody@cliente.example"]["state"] != "failed" || len(smtpServer.Received()) != 0 {
		t.Fatalf("after the first try: %v", s)
	}
	env.sendMail() // not due yet
	if len(smtpServer.Received()) != 0 {
		t.Fatal("tried again before its time")
	}
	env.srv.now = func() time.Time { return time.Now().Add(6 * time.Minute) }
	env.sendMail()
	if s := states(); s["busy@cliente.example"]["b_sent"] != true || s["nobody@cliente.example"]["state"] != "failed" || len(smtpServer.Received()) != 1 {
		t.Fatalf("after the retry: %v", s)
	}
	if h := env.emailHistory(id); h["email_retry"] != 1 || h["email_failed"] != 1 || h["email_sent"] != 1 {
		t.Fatalf("history: %v", h)
	}
}

// A message nobody accepts is given up after the last wait of the schedule.
func TestEmailGivenUpAfterTheSchedule(t *testing.T) {
	env, smtpServer := mailEnv(t, func(c *Config) { c.Mail.RetrySchedule = []time.Duration{time.Minute} })
	smtpServer.Answer(func(string, int) *gosmtp.SMTPError { return &gosmtp.SMTPError{Code: 421, Message: "closing"} })
	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("M4", env.customer.NIF, `, "send_by_email": 1`)))
	env.sendMail()
	env.srv.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	env.sendMail()
	if e := env.emailsOf(id); e[0]["state"] != "failed" || e[0]["error"] == "" {
		t.Fatalf("%v", e)
	}
}

// dsnFor is a delivery status notification for a message, as a receiving MTA would write it.
func dsnFor(to, failedRcpt, messageID string) string {
	return "From: MAILER-DAEMON@mx.cliente.example\r\nTo: " + to + "\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"R\"\r\n\r\n" +
		"--R\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n" +
		"--R\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.cliente.example\r\n\r\n" +
		"Final-Recipient: rfc822; " + failedRcpt + "\r\nAction: failed\r\nStatus: 5.2.2\r\nDiagnostic-Code: smtp; 552 5.2.2 Mailbox full\r\n\r\n" +
		"--R\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: <" + messageID + ">\r\nSubject: Fatura\r\n--R--\r\n"
}

// Returned mail sent to the bounce listener marks the record returned and schedules it again; the next
// sending goes out with the same Message-ID.
func TestReturnedMailThroughTheListener(t *testing.T) {
	env, smtpServer := mailEnv(t)
	listener, err := startBounceListener(env)
	if err != nil {
		t.Fatal(err)
	}
	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("M5", env.customer.NIF, `, "send_by_email": 1`)))
	env.sendMail()
	sent := smtpServer.Received()
	if len(sent) != 1 {
		t.Fatalf("%d messages", len(sent))
	}
	original := parseMail(t, sent[0].Data)
	messageID := strings.Trim(original.header.Get("Message-Id"), "<>")

	// The report comes back to the tagged return path, through an SMTP client that is not ours.
	report := dsnFor(sent[0].From, sent[0].To[0], messageID)
	if err := smtp.SendMail(listener, nil, "", []string{sent[0].From}, []byte(report)); err != nil {
		t.Fatal(err)
	}
	e := env.emailsOf(id)[0]
	if e["state"] != "returned" || e["b_sent"] != false || !strings.Contains(e["error"].(string), "5.2.2") {
		t.Fatalf("after the report: %v", e)
	}
	// The same report again changes nothing; the retry goes out when due, with the same Message-ID.
	if err := smtp.SendMail(listener, nil, "", []string{sent[0].From}, []byte(report)); err != nil {
		t.Fatal(err)
	}
	env.sendMail()
	if len(smtpServer.Received()) != 1 {
		t.Fatal("sent again before its time")
	}
	env.srv.now = func() time.Time { return time.Now().Add(6 * time.Minute) }
	env.sendMail()
	again := smtpServer.Received()
	if len(again) != 2 || strings.Trim(parseMail(t, again[1].Data).header.Get("Message-Id"), "<>") != messageID {
		t.Fatalf("resent: %d", len(again))
	}
	if e := env.emailsOf(id)[0]; e["state"] != "sent" || e["b_sent"] != true {
		t.Fatalf("after the resend: %v", e)
	}
	if h := env.emailHistory(id); h["email_returned"] != 1 || h["email_sent"] != 2 {
		t.Fatalf("history: %v", h)
	}

	// A report that reaches the plain return path is matched by the Message-ID it quotes; a forged tag
	// matches nothing.
	id2 := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("M6", env.customer.NIF, `, "send_by_email": 1`)))
	env.sendMail()
	all := smtpServer.Received()
	last := all[len(all)-1]
	forged := strings.Replace(last.From, "bounces+e", "bounces+e9", 1)
	if err := env.srv.HandleBounce(context.Background(), []string{forged}, []byte(dsnFor(forged, last.To[0], "someone-else@x"))); err != nil {
		t.Fatal(err)
	}
	if e := env.emailsOf(id2)[0]; e["state"] != "sent" {
		t.Fatalf("a forged tag matched: %v", e)
	}
	lastID := strings.Trim(parseMail(t, last.Data).header.Get("Message-Id"), "<>")
	if err := env.srv.HandleBounce(context.Background(), []string{"bounces@einvoice.example"}, []byte(dsnFor("bounces@einvoice.example", last.To[0], lastID))); err != nil {
		t.Fatal(err)
	}
	if e := env.emailsOf(id2)[0]; e["state"] != "returned" {
		t.Fatalf("by Message-ID: %v", e)
	}
}

// startBounceListener starts the service's bounce listener on a free port.
func startBounceListener(env *docEnv) (string, error) {
	l, err := env.srv.listenBounces("127.0.0.1:0")
	if err != nil {
		return "", err
	}
	env.t.Cleanup(func() { l.Close() })
	return l.Addr(), nil
}

// In test mode mail goes to the outbox folder as .eml files.
func TestDemoModeWritesTheOutbox(t *testing.T) {
	dir := t.TempDir()
	env := newDocEnv(t, func(c *Config) { c.Environment.Mode = "test"; c.Mail.OutboxDir = dir })
	yes := true
	for _, e := range []store.Entity{env.entity, env.customer} {
		env.st.UpdateEntity(context.Background(), e.ID, store.EntityChanges{TestEntity: &yes})
	}
	env.entity, _ = env.st.EntityByID(context.Background(), env.entity.ID)
	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("D1", env.customer.NIF, `, "send_by_email": 1`)))
	env.sendMail()
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	raw, _ := os.ReadFile(files[0])
	m := parseMail(t, raw)
	if !bytes.Equal(m.parts["application/pdf"], env.file(id, "pdf")) || !strings.HasPrefix(m.header.Get("Return-Path"), "<faturas+e") {
		t.Fatalf("outbox message: %v", m.header)
	}
	if e := env.emailsOf(id)[0]; e["b_sent"] != true {
		t.Fatalf("%v", e)
	}
}

// The mail job sends a large queue over few connections, each message once.
func TestEmailQueueUsesFewConnections(t *testing.T) {
	env, smtpServer := mailEnv(t, func(c *Config) { c.Mail.Batch = 50 })
	extra := `, "send_by_email": 1, "additional_emails": [%s]`
	for i := 0; i < 20; i++ {
		var addrs []string
		for j := 0; j < 9; j++ {
			addrs = append(addrs, fmt.Sprintf(`"r%d-%d@cliente.example"`, i, j))
		}
		created(t, env.post("/documents", env.entity, "application/json", invoiceJSON(fmt.Sprintf("Q%d", i), env.customer.NIF, fmt.Sprintf(extra, strings.Join(addrs, ",")))))
	}
	env.sendMail()
	got := smtpServer.Received()
	seen := map[string]int{}
	for _, r := range got {
		seen[parseMail(t, r.Data).header.Get("Message-Id")]++
	}
	if len(got) != 200 || len(seen) != 200 || smtpServer.Connections() != 4 {
		t.Fatalf("%d messages, %d distinct, %d connections", len(got), len(seen), smtpServer.Connections())
	}
}

// The PDF a customer gets verifies with the independent checker too.
func TestEmailedPDFVerifiesWithPdfsig(t *testing.T) {
	pdfsig := ubltest.Need(t, "pdfsig")
	env, smtpServer := mailEnv(t)
	env.giveSeal(issuerSeal())
	created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("M7", env.customer.NIF, `, "send_by_email": 1`)))
	env.sendMail()
	got := smtpServer.Received()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	file := filepath.Join(t.TempDir(), "mailed.pdf")
	os.WriteFile(file, parseMail(t, got[0].Data).parts["application/pdf"], 0o600)
	if out, _ := exec.Command(pdfsig, file).CombinedOutput(); !strings.Contains(string(out), "Signature is Valid") {
		t.Fatalf("pdfsig:\n%s", out)
	}
	if _, err := signing.VerifyPDF(parseMail(t, got[0].Data).parts["application/pdf"]); err != nil {
		t.Fatal(err)
	}
}

// startIMAP serves one mailbox user on loopback, with the messages given in its INBOX.
func startIMAP(t *testing.T, messages ...string) (host string, port int) {
	t.Helper()
	mem := imapmemserver.New()
	user := imapmemserver.NewUser("bounces", "s3gredo")
	if err := user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	for _, m := range messages {
		if _, err := user.Append("INBOX", bytes.NewReader([]byte(m)), &imap.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mem.AddUser(user)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps: imap.CapSet{imap.CapIMAP4rev1: {}}, InsecureAuth: true, Logger: log.New(io.Discard, "", 0),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
}

// Returned mail that lands in a mailbox is read over IMAP: the report marks the record returned, other
// mail is left alone, and every message read is marked seen so it is read once.
func TestReturnedMailFromTheMailbox(t *testing.T) {
	env, smtpServer := mailEnv(t)
	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("M8", env.customer.NIF, `, "send_by_email": 1`)))
	env.sendMail()
	sent := smtpServer.Received()[0]
	messageID := strings.Trim(parseMail(t, sent.Data).header.Get("Message-Id"), "<>")
	host, port := startIMAP(t, "From: someone@example.com\r\nSubject: hello\r\n\r\nnot a report\r\n", dsnFor(sent.From, sent.To[0], messageID))
	env.srv.cfg.Mail.Bounces.IMAPConfig = mailer.IMAPConfig{Host: host, Port: port, Username: "bounces", Password: "s3gredo", TLS: "none", Mailbox: "INBOX"}
	if err := env.srv.readBounceMailbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e := env.emailsOf(id)[0]; e["state"] != "returned" {
		t.Fatalf("after reading the mailbox: %v", e)
	}
	n, err := mailer.FetchBounces(context.Background(), env.srv.cfg.Mail.Bounces.IMAPConfig, 1<<20,
		func(context.Context, []string, []byte) error { t.Fatal("a message was read twice"); return nil })
	if err != nil || n != 0 {
		t.Fatalf("second reading: %d %v", n, err)
	}
	env.srv.cfg.Mail.Bounces.Password = "wrong"
	if err := env.srv.readBounceMailbox(context.Background()); err == nil {
		t.Fatal("a wrong password was accepted")
	}
}

// The SMTP transport upgrades to TLS with STARTTLS and logs in; a wrong password is the installation's
// problem, not the address's: the mail stays queued for another try.
func TestEmailOverSTARTTLSWithLogin(t *testing.T) {
	smtpServer := mailertest.StartSMTPWithTLS(t, "einvoice", "s3gredo")
	env := newDocEnv(t, func(c *Config) {
		c.Mail.SMTP = mailer.SMTPConfig{Host: smtpServer.Host, Port: smtpServer.Port, TLS: "starttls", Insecure: true,
			Username: "einvoice", Password: "wrong", Timeout: 5 * time.Second}
	})
	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("T1", env.customer.NIF, `, "send_by_email": 1`)))
	env.sendMail()
	if e := env.emailsOf(id)[0]; e["state"] != "queued" || e["error"] == "" || len(smtpServer.Received()) != 0 {
		t.Fatalf("wrong password: %v", e)
	}
	env.srv.cfg.Mail.SMTP.Password = "s3gredo"
	env.srv.now = func() time.Time { return time.Now().Add(6 * time.Minute) }
	env.sendMail()
	if e := env.emailsOf(id)[0]; e["state"] != "sent" || len(smtpServer.Received()) != 1 {
		t.Fatalf("right password: %v", e)
	}
	// Without TLS the transport refuses to send when STARTTLS is required and not offered.
	plain := mailertest.StartSMTP(t)
	env.srv.cfg.Mail.SMTP = mailer.SMTPConfig{Host: plain.Host, Port: plain.Port, TLS: "starttls", Timeout: 5 * time.Second}
	id = created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("T2", env.customer.NIF, `, "send_by_email": 1`)))
	env.srv.now = time.Now
	env.sendMail()
	if e := env.emailsOf(id)[0]; e["state"] != "queued" || len(plain.Received()) != 0 {
		t.Fatalf("STARTTLS not offered: %v", e)
	}
}

// The XML method takes the customer's address from the XML, and a malformed one is refused.
func TestEmailAddressFromTheXML(t *testing.T) {
	env, smtpServer := mailEnv(t)
	xml := string(buildXML(t, env, "X1", env.customer.NIF))
	r := env.do("POST", "/api/v1/en/apps/documentsUBL?send_by_email=1", env.as(env.entity, "application/xml"), xml)
	created(t, r)
	env.sendMail()
	if got := smtpServer.Received(); len(got) != 1 || got[0].To[0] != "compras@cliente.example" {
		t.Fatalf("%d messages", len(got))
	}
	bad := strings.Replace(string(buildXML(t, env, "X2", env.customer.NIF)), "compras@cliente.example", "compras-at-cliente", 1)
	expectError(t, env.do("POST", "/api/v1/en/apps/documentsUBL?send_by_email=1", env.as(env.entity, "application/xml"), bad), 400, "document:e302")
}

// With no SMTP server configured, queued mail waits with the reason visible, and the job says nothing
// while nothing is due.
func TestEmailWithoutSMTPServer(t *testing.T) {
	env := newDocEnv(t)
	if err := env.srv.deliverEmails(context.Background()); err != nil {
		t.Fatalf("nothing due: %v", err)
	}
	id := created(t, env.post("/documents", env.entity, "application/json", invoiceJSON("N1", env.customer.NIF, `, "send_by_email": 1`)))
	if err := env.srv.deliverEmails(context.Background()); err == nil {
		t.Fatal("no error without an SMTP server")
	}
	if e := env.emailsOf(id)[0]; e["state"] != "queued" || !strings.Contains(e["error"].(string), "mail.smtp.host") {
		t.Fatalf("%v", e)
	}
}
