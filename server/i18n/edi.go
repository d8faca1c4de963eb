package i18n

// The texts of external connections and EDI: the e-mails to the EDI operator that asked for a
// connection, and the words of EDI history entries.
func init() {
	for k, t := range map[string]Text{
		"mail.connection.created.subject": {"Pedido de ligação %s recebido", "Connection request %s received"},
		"mail.connection.created.body": {
			"Bom dia,\n\nRecebemos o pedido de ligação %s entre %s (%s) e %s (%s).\nA equipa de suporte vai analisá-lo; receberá uma mensagem sempre que o estado mudar.\n\nObservação: %s\n",
			"Hello,\n\nWe received the connection request %s between %s (%s) and %s (%s).\nThe support team will review it; you will get a message whenever its status changes.\n\nObservation: %s\n"},
		"mail.connection.state.subject": {"Pedido de ligação %s: %s", "Connection request %s: %s"},
		"mail.connection.state.body": {
			"Bom dia,\n\nO pedido de ligação %s entre %s (%s) e %s (%s) está agora: %s.\n\nMotivo: %s\nObservação do suporte: %s\n",
			"Hello,\n\nThe connection request %s between %s (%s) and %s (%s) is now: %s.\n\nReason: %s\nSupport's observation: %s\n"},

		"api.history.edi_delivery_delivered":                {"Entregue ao parceiro EDI.", "Delivered to the EDI partner."},
		"api.history.edi_delivery_awaiting_acknowledgement": {"Enviado ao parceiro EDI; aguarda confirmação.", "Sent to the EDI partner; awaiting its acknowledgement."},
		"api.history.edi_delivery_acknowledged":             {"O parceiro EDI confirmou a receção.", "The EDI partner acknowledged it."},
		"api.history.edi_delivery_negative_acknowledgement": {"O parceiro EDI recusou a receção; nova tentativa agendada.", "The EDI partner refused it; another attempt is scheduled."},
		"api.history.edi_delivery_error":                    {"Falha no envio ao parceiro EDI; nova tentativa agendada.", "Sending to the EDI partner failed; another attempt is scheduled."},
		"api.history.edi_delivery_refused":                  {"O parceiro EDI recusou o documento.", "The EDI partner refused the document."},
		"api.history.edi_delivery_gave_up":                  {"Envio ao parceiro EDI abandonado após todas as tentativas.", "Sending to the EDI partner given up after every attempt."},
		"api.history.edi_status_ignored":                    {"Mensagem de estado EDI recebida que não se aplica ao estado do documento.", "An EDI status message that does not apply where the document stands."},
	} {
		Add(k, t)
	}
}
