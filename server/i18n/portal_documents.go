package i18n

// The portal's document pages beyond reading: issuing by upload, correcting, sending the e-mail again,
// signatures, e-mails and the timeline's entries.
func init() {
	for k, t := range documentTexts {
		Add(k, t)
	}
}

var documentTexts = map[string]Text{
	"nav.new": {"Emitir", "Issue"},

	"new.title":         {"Emitir um documento", "Issue a document"},
	"new.intro":         {"Envie o documento em UBL 2.1 (CIUS-PT para faturas e notas de crédito, PEPPOL BIS 3 para encomendas). É validado com as regras oficiais e enviado ao destinatário, como pela API.", "Send the document as UBL 2.1 (CIUS-PT for invoices and credit notes, PEPPOL BIS 3 for orders). It is checked against the official rules and sent to the recipient, as through the API."},
	"new.file":          {"Documento UBL (XML)", "UBL document (XML)"},
	"new.send_by_email": {"Enviar também por e-mail (ao contacto do cliente no XML e aos endereços abaixo)", "Also send by e-mail (to the customer's contact in the XML and to the addresses below)"},
	"new.addresses":     {"Outros endereços de e-mail, separados por vírgulas", "Other e-mail addresses, separated by commas"},
	"new.no_xml_sign":   {"Não assinar o XML", "Do not sign the XML"},
	"new.no_pdf_sign":   {"Não assinar os PDF", "Do not sign the PDFs"},
	"new.submit":        {"Emitir", "Issue"},
	"new.refused":       {"O documento não foi emitido.", "The document was not issued."},
	"new.findings":      {"Constatações das regras oficiais", "Findings of the official rules"},
	"new.more":          {"e mais %d constatações.", "and %d more findings."},
	"new.issued":        {"Documento emitido.", "Document issued."},
	"new.edited":        {"Já existia um documento editável com este número, tipo e data: foi enviada uma nova versão.", "An editable document with this number, type and date existed: a new version was sent."},
	"new.link":          {"Emitir um documento", "Issue a document"},

	"correct.title":  {"Corrigir %s", "Correct %s"},
	"correct.intro":  {"Envie o XML corrigido: o mesmo número, tipo e data de emissão. O destinatário recebe a nova versão.", "Send the corrected XML: the same number, type and issue date. The recipient gets the new version."},
	"correct.submit": {"Enviar a nova versão", "Send the new version"},
	"correct.done":   {"Nova versão enviada.", "New version sent."},

	"doc.correct":          {"Corrigir e reenviar", "Correct and resend"},
	"doc.correct_intro":    {"Enquanto o documento é editável pode enviar uma versão corrigida.", "While the document is editable you can send a corrected version."},
	"doc.correct_options":  {"Mudar as opções de envio e assinatura", "Change the sending and signing options"},
	"doc.resend":           {"Enviar o e-mail novamente", "Send the e-mail again"},
	"doc.resend_to":        {"Endereços, separados por vírgulas (vazio: os de antes)", "Addresses, separated by commas (empty: the previous ones)"},
	"doc.resend_submit":    {"Enviar", "Send"},
	"doc.resent":           {"E-mail posto na fila de envio.", "E-mail queued for sending."},
	"doc.signer":           {"Assinado por %s", "Signed by %s"},
	"doc.emails":           {"E-mails", "E-mails"},
	"doc.email_address":    {"Endereço", "Address"},
	"doc.email_sent":       {"Enviado em", "Sent at"},
	"doc.email_opened":     {"Lido em", "Read at"},
	"doc.email_error":      {"Erro", "Error"},
	"doc.rules":            {"Regras e códigos", "Rules and codes"},
	"doc.reason_when":      {"Data", "Date"},
	"signature.verified":   {"verificada", "verified"},
	"signature.invalid":    {"inválida", "not valid"},
	"signature.none":       {"sem assinatura", "not signed"},
	"email.queued":         {"na fila", "queued"},
	"email.sent":           {"enviado", "sent"},
	"email.failed":         {"falhou", "failed"},
	"email.returned":       {"devolvido", "returned"},
	"event.email_queued":   {"E-mail posto na fila", "E-mail queued"},
	"event.email_sent":     {"E-mail enviado", "E-mail sent"},
	"event.email_retry":    {"E-mail por enviar: nova tentativa agendada", "E-mail not sent: another attempt scheduled"},
	"event.email_failed":   {"E-mail falhou", "E-mail failed"},
	"event.email_returned": {"E-mail devolvido", "E-mail returned"},
	"event.email_opened":   {"E-mail lido", "E-mail read"},

	"tosend.sent_connection":           {"à espera que o destinatário aprove a ligação", "waiting for the recipient to approve the connection"},
	"tosend.no_connection":             {"sem ligação com o destinatário", "no connection with the recipient"},
	"tosend.registered_entity":         {"o destinatário não está registado neste serviço", "the recipient is not registered with this service"},
	"tosend.received_pay_transactions": {"o destinatário não tem transações disponíveis", "the recipient has no transactions left"},

	"attention.failed_emails":    {"E-mails que falharam", "E-mails that failed"},
	"attention.failing_webhooks": {"Webhooks com entregas a falhar", "Webhooks whose deliveries fail"},
}
