package server

import "net/http"

// Codes of the AS2 identity and partners (e430–e449).
var (
	CodeAS2FileUnreadable = register("e430", http.StatusBadRequest, "O ficheiro da identidade AS2 não abre: palavra-passe errada ou não é PKCS#12.", "The AS2 identity file cannot be opened: wrong password, or not PKCS#12.")
	CodeAS2KeyNotRSA      = register("e431", http.StatusBadRequest, "A chave AS2 tem de ser RSA.", "The AS2 key must be RSA.")
	CodeAS2BadCertificate = register("e432", http.StatusBadRequest, "O certificado do parceiro AS2 não é um certificado X.509 em PEM com chave RSA.", "The AS2 partner's certificate is not a PEM X.509 certificate with an RSA key.")
)
