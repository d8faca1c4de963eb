package server

import "net/http"

// Codes of the portal's document actions (e380–e389).
var (
	CodeOtherDocument = register("e380", http.StatusBadRequest,
		"O XML enviado é de outro documento: para corrigir, o número, o tipo e a data de emissão têm de ser os mesmos.",
		"The XML sent is another document: a correction keeps the number, the type and the issue date.")
	CodeNoAddresses = register("e381", http.StatusBadRequest,
		"Indique pelo menos um endereço de e-mail: o documento não foi enviado por e-mail antes.",
		"Give at least one e-mail address: the document was not sent by e-mail before.")
)
