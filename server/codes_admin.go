package server

import "net/http"

// Codes of the support console and of the portal's connection requests (e400–e409, s400–s409).
var (
	CodeConnectionRequested = register("s400", http.StatusCreated, "Ligação pedida; o suporte vai analisá-la.", "Connection requested; the support team will review it.")

	CodeNoSuchTaxID = register("e400", http.StatusBadRequest, "Não há nenhuma entidade com este NIF neste serviço.", "There is no entity with this tax ID on this service.")
	CodeNoOutbox    = register("e401", http.StatusNotFound, "Este serviço não guarda os e-mails numa pasta (mail.outbox_dir).", "This service does not keep its e-mails in a folder (mail.outbox_dir).")
)
