package server

import "net/http"

// The codes of an entity's own settings (the portal's /portal/settings): the company profile, the
// notification e-mails and the entity's users.
var (
	CodeInvalidIBAN       = register("e390", http.StatusBadRequest, "O IBAN não é válido (verifique os dígitos de controlo).", "The IBAN is not valid (check its check digits).")
	CodeInvalidGLN        = register("e391", http.StatusBadRequest, "O GLN tem de ter 13 algarismos com o dígito de controlo certo.", "The GLN must have 13 digits with the right check digit.")
	CodeInvalidPostalZone = register("e392", http.StatusBadRequest, "O código postal português tem a forma 0000-000.", "A Portuguese postal code has the form 0000-000.")
	CodeTooManyAddresses  = register("e393", http.StatusBadRequest, "Demasiados endereços de e-mail.", "Too many e-mail addresses.")
	CodeOwnUser           = register("e394", http.StatusBadRequest, "Não pode alterar o seu próprio utilizador aqui.", "You cannot change your own user here.")
	CodeSettingsLimit     = register("e396", http.StatusBadRequest, "A entidade já tem o número máximo destes itens.", "The entity already has the most of these it may have.")
	CodeUserOfOthers      = register("e395", http.StatusBadRequest, "O utilizador pertence também a outras entidades; peça ao suporte para o desativar.", "The user belongs to other entities too; ask support to disable it.")
)
