package mailer

import "strings"

// Words are what a message says around the document, in one language. The caller gives them (the
// server keeps them in its catalogue), so that this package makes no choice of language itself.
type Words struct {
	Lang                                       string // the message's language, for Content-Language
	Greeting, Intro, IssuedBy, IssuedOn, NIF   string
	Payable, DueDate, ATCUD, Attached, Signed  string
	XMLAttached, ReplyNote, Footer, DocumentOf string
	DecimalComma                               bool
}

// subject is "Fatura FT 2026/128 de Empresa, Lda." in the message's language.
func (l Words) subject(d Document) string {
	return strings.TrimSpace(d.Title + " " + d.Number + " " + l.DocumentOf + " " + d.Issuer)
}

// footer is the closing line, one full stop at its end.
func (l Words) footer(issuer string) string {
	return strings.TrimSuffix(l.Footer+" "+issuer, ".") + "."
}

// amount writes a decimal amount with its currency, with a decimal comma in Portuguese.
func (l Words) amount(value, currency string) string {
	if value == "" {
		return ""
	}
	if l.DecimalComma {
		value = strings.Replace(value, ".", ",", 1)
	}
	return strings.TrimSpace(value + " " + currency)
}
