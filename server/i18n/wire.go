package i18n

// Texts of the document view's incumbent-shaped parts.
func init() {
	Add("api.information.commitment", Text{"Nº Compromisso", "Commitment number"})
}
