package mailer

import "strings"

// labels are the words of a message in one language.
type labels struct {
	Code                                       string
	Greeting, Intro, IssuedBy, IssuedOn, NIF   string
	Payable, DueDate, ATCUD, Attached, Signed  string
	XMLAttached, ReplyNote, Footer, DocumentOf string
	DecimalComma                               bool
}

var portuguese = labels{
	Code: "pt", Greeting: "Bom dia,", Intro: "Enviamos em anexo o documento", IssuedBy: "emitido por",
	IssuedOn: "Data de emissão", NIF: "NIF", Payable: "Valor a pagar", DueDate: "Data de vencimento", ATCUD: "ATCUD",
	Attached:    "O documento segue em anexo em PDF.",
	Signed:      "O PDF está assinado digitalmente com o selo eletrónico do emitente.",
	XMLAttached: "Segue também o ficheiro XML (UBL 2.1, CIUS-PT) para integração no seu sistema.",
	ReplyNote:   "Para qualquer questão sobre este documento, responda a esta mensagem.",
	Footer:      "Mensagem enviada automaticamente pelo serviço de faturação eletrónica em nome de",
	DocumentOf:  "de", DecimalComma: true,
}

var english = labels{
	Code: "en", Greeting: "Hello,", Intro: "Please find attached the document", IssuedBy: "issued by",
	IssuedOn: "Issue date", NIF: "Tax ID", Payable: "Amount due", DueDate: "Due date", ATCUD: "ATCUD",
	Attached:    "The document is attached as a PDF.",
	Signed:      "The PDF is digitally signed with the issuer's electronic seal.",
	XMLAttached: "The XML file (UBL 2.1, CIUS-PT) is attached too, for your system to import.",
	ReplyNote:   "For any question about this document, reply to this message.",
	Footer:      "Sent automatically by the electronic invoicing service on behalf of",
	DocumentOf:  "from",
}

func labelsFor(lang string) labels {
	if lang == "en" {
		return english
	}
	return portuguese
}

// subject is "Fatura FT 2026/128 de Empresa, Lda." in the message's language.
func (l labels) subject(d Document) string {
	return strings.TrimSpace(d.Title + " " + d.Number + " " + l.DocumentOf + " " + d.Issuer)
}

// footer is the closing line, one full stop at its end.
func (l labels) footer(issuer string) string {
	return strings.TrimSuffix(l.Footer+" "+issuer, ".") + "."
}

// amount writes a decimal amount with its currency, with a decimal comma in Portuguese.
func (l labels) amount(value, currency string) string {
	if value == "" {
		return ""
	}
	if l.DecimalComma {
		value = strings.Replace(value, ".", ",", 1)
	}
	return strings.TrimSpace(value + " " + currency)
}
