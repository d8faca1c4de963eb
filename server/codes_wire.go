package server

import "net/http"

// Codes of the document list as the incumbent's clients use it, and of its public file links.
var (
	CodeLinksRevoked = register("s410", http.StatusOK, "As ligações públicas aos ficheiros do documento foram revogadas.", "The public links to the document's files were revoked.")
)
