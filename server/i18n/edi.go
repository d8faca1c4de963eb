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
	} {
		Add(k, t)
	}
}
