package i18n

// The API's words: descriptions of states, types and history entries in its answers. The codes' texts
// are added by the code registry (server/codes.go), beside their status.
var apiTexts = map[string]Text{
	"api.state.tosend":   {"Por enviar ao cliente.", "To be sent to the customer."},
	"api.state.sent":     {"Enviado ao cliente.", "Sent to customer."},
	"api.state.accepted": {"Aceite pelo cliente.", "Accepted by the customer."},
	"api.state.rejected": {"Rejeitado pelo cliente.", "Rejected by the customer."},

	"api.edi.pending":        {"Por transmitir.", "Not transmitted yet."},
	"api.edi.delivered":      {"Entregue ao destinatário.", "Delivered to the recipient."},
	"api.edi.regularization": {"Regularização pedida.", "Regularisation requested."},
	"api.edi.reception":      {"Em receção.", "In reception."},
	"api.edi.error":          {"Erro na transmissão.", "Transmission error."},
	"api.edi.accepted":       {"Aceite.", "Accepted."},
	"api.edi.returned":       {"Devolvido: anular e emitir um novo documento.", "Returned: cancel it and issue a new document."},
	"api.edi.in_payment":     {"Em pagamento.", "In payment."},
	"api.edi.paid":           {"Pago.", "Paid."},

	"api.tosend.sent_connection":           {"A aguardar a aceitação da ligação com o destinatário do documento.", "Await acceptance of connection with the recipient of the document."},
	"api.tosend.no_connection":             {"Não existe ligação com o destinatário do documento.", "There is no connection with the recipient of the document."},
	"api.tosend.registered_entity":         {"O destinatário não está registado nesta instalação.", "The recipient is not registered in this installation."},
	"api.tosend.received_pay_transactions": {"O destinatário suporta os custos dos documentos recebidos e não tem transações suficientes.", "The recipient bears the costs of received documents and has too few transactions."},

	"api.type_document.issued":   {"Emitido", "Issued"},
	"api.type_document.received": {"Recebido", "Received"},

	"api.history.edited":         {"Documento editado e reenviado.", "Document edited and resent."},
	"api.history.imported":       {"Documento importado pelo destinatário.", "Document imported by the recipient."},
	"api.history.process_state":  {"Estado de processamento alterado.", "Process state changed."},
	"api.history.tosend":         {"Documento por enviar ao cliente.", "Document to be sent to the customer."},
	"api.history.sent":           {"Documento enviado ao cliente.", "Document sent to the customer."},
	"api.history.accepted":       {"Documento aceite pelo cliente.", "Document accepted by the customer."},
	"api.history.rejected":       {"Documento rejeitado pelo cliente.", "Document rejected by the customer."},
	"api.history.email_queued":   {"E-mail em fila de envio.", "E-mail queued for sending."},
	"api.history.email_sent":     {"E-mail aceite pelo servidor de correio.", "E-mail accepted by the mail server."},
	"api.history.email_retry":    {"Envio do e-mail falhou; nova tentativa agendada.", "E-mail sending failed; another try is scheduled."},
	"api.history.email_failed":   {"Envio do e-mail falhou definitivamente.", "E-mail sending failed for good."},
	"api.history.email_returned": {"E-mail devolvido pelo servidor de destino.", "E-mail returned by the receiving server."},
	"api.history.email_opened":   {"E-mail lido pelo destinatário.", "E-mail read by the recipient."},

	"api.connection.state.analyzing": {"Em análise", "Under analysis"},
	"api.connection.state.approved":  {"Aprovado", "Approved"},
	"api.connection.state.declined":  {"Recusado", "Declined"},
	"api.connection.state.pending":   {"Pendente", "Pending"},
	"api.connection.type.standard":   {"Normal", "Standard"},
	"api.connection.type.inbound":    {"Entrada", "Inbound"},
}
