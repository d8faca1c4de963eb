package mailer

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"
)

// testWords are a message's words as a caller gives them (the server takes them from its catalogue).
var testWords = map[string]Words{
	"pt": {Lang: "pt", Greeting: "Bom dia,", Intro: "Enviamos em anexo o documento", IssuedBy: "emitido por",
		IssuedOn: "Data de emissão", NIF: "NIF", Payable: "Valor a pagar", DueDate: "Data de vencimento", ATCUD: "ATCUD",
		Attached: "O documento segue em anexo em PDF.", Signed: "O PDF está assinado.", XMLAttached: "Segue também o XML.",
		ReplyNote: "Responda a esta mensagem.", Footer: "Mensagem enviada em nome de", DocumentOf: "de", DecimalComma: true},
	"en": {Lang: "en", Greeting: "Hello,", Intro: "Please find attached the document", IssuedBy: "issued by",
		IssuedOn: "Issue date", NIF: "Tax ID", Payable: "Amount due", DueDate: "Due date", ATCUD: "ATCUD",
		Attached: "The document is attached as a PDF.", Signed: "The PDF is signed.", XMLAttached: "The XML is attached too.",
		ReplyNote: "Reply to this message.", Footer: "Sent on behalf of", DocumentOf: "from"},
}

func letter(lang string) Letter {
	return Letter{
		Words: testWords[lang], From: Sender{Name: "Fornecedor, Lda.", Address: "faturas@fornecedor.example", ReplyTo: "contas@fornecedor.example"},
		To: "cliente@example.com", MessageID: "abc123@fornecedor.example", ReturnPath: "bounces+e1-ff@fornecedor.example",
		TrackingURL: "https://einvoice.example/public/emails/TOKEN.gif", Date: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC),
		Document: Document{Title: map[string]string{"pt": "Fatura", "en": "Invoice"}[lang], Number: "FT 2026/1", IssueDate: "2026-11-20",
			DueDate: "2026-12-20", Issuer: "Fornecedor, Lda.", IssuerNIF: "PT508025338", Payable: "1234.50", Currency: "EUR", Signed: true},
		Attachments: []Attachment{{Name: "FT 2026-1.pdf", MIME: "application/pdf", Content: []byte("%PDF-1.7 signed bytes \x00\xff")}},
	}
}

// parts walks a message and returns its leaves by content type.
func parts(t *testing.T, raw []byte) (*mail.Message, map[string][]byte, map[string]string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	leaves, names := map[string][]byte{}, map[string]string{}
	var walk func(ct string, body io.Reader, cte, disposition string)
	walk = func(ct string, body io.Reader, cte, disposition string) {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("content type %q: %v", ct, err)
		}
		if strings.HasPrefix(mt, "multipart/") {
			r := multipart.NewReader(body, params["boundary"])
			for {
				p, err := r.NextRawPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				walk(p.Header.Get("Content-Type"), p, p.Header.Get("Content-Transfer-Encoding"), p.Header.Get("Content-Disposition"))
			}
		}
		data, _ := io.ReadAll(body)
		if strings.EqualFold(cte, "base64") {
			data = decodeBase64(t, data)
		} else if strings.EqualFold(cte, "quoted-printable") {
			data, _ = io.ReadAll(quotedPrintable(data))
		}
		leaves[mt] = data
		if _, dp, err := mime.ParseMediaType(disposition); err == nil {
			names[mt] = dp["filename"]
		}
	}
	walk(msg.Header.Get("Content-Type"), msg.Body, msg.Header.Get("Content-Transfer-Encoding"), "")
	return msg, leaves, names
}

func TestComposeInBothLanguages(t *testing.T) {
	for _, c := range []struct{ lang, subject, amount, text string }{
		{"pt", "Fatura FT 2026/1 de Fornecedor, Lda.", "1234,50 EUR", "Valor a pagar"},
		{"en", "Invoice FT 2026/1 from Fornecedor, Lda.", "1234.50 EUR", "Amount due"},
	} {
		m, err := Compose(letter(c.lang))
		if err != nil {
			t.Fatal(err)
		}
		var raw bytes.Buffer
		m.WriteTo(&raw)
		msg, leaves, names := parts(t, raw.Bytes())
		subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if subject != c.subject || msg.Header.Get("Message-Id") != "<abc123@fornecedor.example>" ||
			msg.Header.Get("Reply-To") != "<contas@fornecedor.example>" || msg.Header.Get("Content-Language") != c.lang {
			t.Fatalf("%s headers: %v", c.lang, msg.Header)
		}
		from, err := mail.ParseAddress(msg.Header.Get("From"))
		if err != nil || from.Name != "Fornecedor, Lda." || from.Address != "faturas@fornecedor.example" {
			t.Fatalf("From %q: %v", msg.Header.Get("From"), err)
		}
		text, html := string(leaves["text/plain"]), string(leaves["text/html"])
		for _, want := range []string{c.text, c.amount, "FT 2026/1", "2026-12-20", "PT508025338"} {
			if !strings.Contains(text, want) || !strings.Contains(html, want) {
				t.Errorf("%s: %q missing from a part", c.lang, want)
			}
		}
		if strings.Contains(text, "Lda..") || !strings.Contains(text, "Fornecedor, Lda.\r\n") {
			t.Errorf("%s: footer %q", c.lang, text)
		}
		if !strings.Contains(html, `src="https://einvoice.example/public/emails/TOKEN.gif"`) || strings.Contains(text, "TOKEN") {
			t.Errorf("%s: tracking image", c.lang)
		}
		if !bytes.Equal(leaves["application/pdf"], letter(c.lang).Attachments[0].Content) || names["application/pdf"] != "FT 2026-1.pdf" {
			t.Errorf("%s: attachment %q %q", c.lang, leaves["application/pdf"], names["application/pdf"])
		}
	}
}

func TestComposeEscapesHTML(t *testing.T) {
	l := letter("pt")
	l.Document.Issuer = `<script>alert(1)</script> & Filhos`
	m, err := Compose(l)
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	m.WriteTo(&raw)
	_, leaves, _ := parts(t, raw.Bytes())
	if strings.Contains(string(leaves["text/html"]), "<script>") || !strings.Contains(string(leaves["text/html"]), "&amp; Filhos") {
		t.Fatal("the issuer's name is not escaped in the HTML part")
	}
}

func TestBounceAddressRoundTrip(t *testing.T) {
	addr := BounceAddress("bounces@mail.example", "e42-0a1b")
	if addr != "bounces+e42-0a1b@mail.example" {
		t.Fatal(addr)
	}
	if tag, ok := BounceTag("<"+strings.ToUpper(addr[:7])+addr[7:]+">", "bounces@mail.example"); ok {
		t.Fatalf("a different local part matched: %s", tag)
	}
	if tag, ok := BounceTag(addr, "bounces@MAIL.example"); !ok || tag != "e42-0a1b" {
		t.Fatal(tag, ok)
	}
	for _, other := range []string{"bounces@mail.example", "bounces+x@other.example", "postmaster@mail.example"} {
		if _, ok := BounceTag(other, "bounces@mail.example"); ok {
			t.Errorf("%s matched", other)
		}
	}
}
