package i18n

// The words of the e-mails that carry documents (see mailer.Words).
var mailTexts = map[string]Text{
	"mail.greeting":     {"Bom dia,", "Hello,"},
	"mail.intro":        {"Enviamos em anexo o documento", "Please find attached the document"},
	"mail.issued_by":    {"emitido por", "issued by"},
	"mail.issued_on":    {"Data de emissão", "Issue date"},
	"mail.nif":          {"NIF", "Tax ID"},
	"mail.payable":      {"Valor a pagar", "Amount due"},
	"mail.due_date":     {"Data de vencimento", "Due date"},
	"mail.atcud":        {"ATCUD", "ATCUD"},
	"mail.attached":     {"O documento segue em anexo em PDF.", "The document is attached as a PDF."},
	"mail.signed":       {"O PDF está assinado digitalmente com o selo eletrónico do emitente.", "The PDF is digitally signed with the issuer's electronic seal."},
	"mail.xml_attached": {"Segue também o ficheiro XML (UBL 2.1, CIUS-PT) para integração no seu sistema.", "The XML file (UBL 2.1, CIUS-PT) is attached too, for your system to import."},
	"mail.reply_note":   {"Para qualquer questão sobre este documento, responda a esta mensagem.", "For any question about this document, reply to this message."},
	"mail.footer":       {"Mensagem enviada automaticamente pelo serviço de faturação eletrónica em nome de", "Sent automatically by the electronic invoicing service on behalf of"},
	"mail.document_of":  {"de", "from"},
}
