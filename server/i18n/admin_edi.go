package i18n

// The support console's EDI pages: the AS2 identity and partners, upstream brokers, the EDI queue.
func init() {
	for k, t := range adminEDITexts {
		Add(k, t)
	}
}

var adminEDITexts = map[string]Text{
	"admin.as2":                      {"AS2", "AS2"},
	"admin.upstreams":                {"Intermediários", "Upstreams"},
	"admin.edi":                      {"Fila EDI", "EDI queue"},
	"admin.as2_identity":             {"Identidade AS2 desta instalação", "This installation's AS2 identity"},
	"admin.as2_id":                   {"ID AS2", "AS2 id"},
	"admin.fingerprint":              {"Impressão digital SHA-256", "SHA-256 fingerprint"},
	"admin.as2_certificate":          {"Certificado", "Certificate"},
	"admin.as2_certificate_download": {"Descarregar o certificado (PEM) para os parceiros", "Download the certificate (PEM) for partners"},
	"admin.as2_identity_import":      {"Importar uma identidade (PKCS#12 com chave RSA)", "Import an identity (PKCS#12 with an RSA key)"},
	"admin.as2_identity_imported":    {"Identidade AS2 importada.", "AS2 identity imported."},
	"admin.as2_partners":             {"Parceiros AS2", "AS2 partners"},
	"admin.as2_partner_new":          {"Novo parceiro AS2", "New AS2 partner"},
	"admin.as2_settings":             {"Assinatura · cifra · compressão · MDN", "Signature · cipher · compression · MDN"},
	"admin.as2_sign":                 {"Assinatura", "Signature"},
	"admin.as2_cipher":               {"Cifra", "Cipher"},
	"admin.as2_certificate_file":     {"Certificado do parceiro (ficheiro PEM)", "Partner's certificate (PEM file)"},
	"admin.as2_certificate_paste":    {"… ou cole o PEM", "… or paste the PEM"},
	"admin.as2_certificate_renewed":  {"Certificado renovado (PEM; vazio mantém o atual)", "Renewed certificate (PEM; empty keeps the current one)"},
	"admin.compressed":               {"comprimido", "compressed"},
	"admin.uncompressed":             {"sem compressão", "uncompressed"},
	"admin.edit":                     {"Alterar", "Edit"},
	"admin.partner_created":          {"Parceiro AS2 criado.", "AS2 partner created."},
	"admin.partner_saved":            {"Parceiro AS2 guardado.", "AS2 partner saved."},
	"admin.partner_deleted":          {"Parceiro AS2 apagado.", "AS2 partner deleted."},
	"admin.upstreams_intro":          {"Serviços com esta mesma API para onde as entidades daqui encaminham os seus documentos.", "Services offering this same API that entities here forward their documents to."},
	"admin.upstream_new":             {"Novo intermediário", "New upstream"},
	"admin.upstream_secret_note":     {"O segredo e a chave pública não voltam a ser mostrados.", "The secret and the public key are never shown again."},
	"admin.upstream_url":             {"URL base da API (até /api/v1/<língua>)", "API base URL (up to /api/v1/<lang>)"},
	"admin.client_id":                {"Client id", "Client id"},
	"admin.client_secret":            {"Client secret", "Client secret"},
	"admin.upstream_public_key":      {"Chave pública da entidade lá", "The entity's public key there"},
	"admin.upstream_created":         {"Intermediário criado.", "Upstream created."},
	"admin.upstream_deleted":         {"Intermediário apagado.", "Upstream deleted."},
	"admin.connection_partner":       {"Parceiro AS2", "AS2 partner"},
	"admin.connection_upstream":      {"Intermediário", "Upstream"},
	"admin.edi_newest":               {"No máximo as %d entregas mais recentes.", "At most the %d newest deliveries."},
	"admin.edi_document":             {"Documento", "Document"},
	"admin.edi_partner":              {"Via · parceiro", "Via · partner"},
	"admin.edi_message_id":           {"ID da mensagem", "Message id"},
	"admin.edi.queued":               {"Em fila", "Queued"},
	"admin.edi.awaiting":             {"A aguardar confirmação", "Awaiting acknowledgement"},
	"admin.edi.done":                 {"Entregue", "Delivered"},
	"admin.edi.failed":               {"Falhou", "Failed"},
	"admin.edi.kind.document":        {"Documento", "Document"},
	"admin.edi.kind.status":          {"Estado", "Status"},
}
