package server

import "net/http"

// The codes of external connections and EDI exchange (e450–e469; s450–s469 for successes).
var (
	CodeNotAClient       = register("e450", http.StatusBadRequest, "A entidade não é cliente deste serviço.", "The entity is not a client of this service.")
	CodeConnectionExists = register("e451", http.StatusBadRequest, "Já existe um pedido de ligação entre estas entidades.", "A connection request between these entities exists already.")
	CodeNoEDIConnection  = register("e452", http.StatusBadRequest, "Não há uma ligação aprovada com este parceiro para o destinatário.", "There is no approved connection with this partner for the recipient.")
	CodeUnknownDocument  = register("e453", http.StatusBadRequest, "A mensagem de estado refere um documento desconhecido.", "The status message refers to an unknown document.")
	CodeInvalidStatus    = register("e454", http.StatusBadRequest, "A mensagem de estado não é válida.", "The status message is not valid.")
)
