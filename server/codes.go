package server

import (
	"einvoice/server/i18n"
	"fmt"
	"net/http"
	"sort"
)

// Code is one entry of the registry of every code the API answers with: its HTTP status, and its text in
// both languages, kept in the catalogue under "code.<id>". Codes are the contract; texts may change.
type Code struct {
	ID     string
	Status int
}

// Msg is the code's text in the call's language ("pt" or "en").
func (c *Code) Msg(lang string) string { return i18n.T(lang, "code."+c.ID) }

var registry = map[string]*Code{}

func register(id string, status int, pt, en string) *Code {
	if _, dup := registry[id]; dup {
		panic(fmt.Sprintf("code %s registered twice", id))
	}
	c := &Code{ID: id, Status: status}
	registry[id] = c
	i18n.Add("code."+id, i18n.Text{PT: pt, EN: en})
	return c
}

// Codes returns the registry sorted by code, for documentation and tests.
func Codes() []*Code {
	out := make([]*Code, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// The spec's codes (part 7) keep the incumbent's numbers; codes this service adds are e3xx / s3xx.
var (
	CodeDocumentCreated   = register("s011", http.StatusCreated, "Documento criado com sucesso.", "Document created successfully.")
	CodeDocumentEdited    = register("s012", http.StatusOK, "Documento editado com sucesso.", "Document edited successfully.")
	CodeConnectionAsked   = register("s039", http.StatusCreated, "Pedido de ligação criado com sucesso.", "Connection request created successfully.")
	CodeHandshakeDone     = register("e123", http.StatusOK, "Integração efetuada com sucesso.", "Integration completed successfully.")
	CodeHandshakeRevoked  = register("s301", http.StatusOK, "Integração revogada.", "Integration revoked.")
	CodeEventsRead        = register("s302", http.StatusOK, "Eventos marcados como lidos.", "Events marked as read.")
	CodeDocumentImported  = register("s303", http.StatusOK, "Importação do documento registada.", "Document import recorded.")
	CodeStateCommunicated = register("s304", http.StatusOK, "Estado do documento comunicado.", "Document state communicated.")
	CodeProcessStateSet   = register("s305", http.StatusOK, "Estado de processamento alterado.", "Process state changed.")

	CodeRecipientRule   = register("e048", http.StatusBadRequest, "O destinatário exige o número de compromisso.", "The recipient requires the commitment number.")
	CodeRecipientPDF    = register("e049", http.StatusBadRequest, "O destinatário exige o PDF do documento em anexo.", "The recipient requires the document's PDF attached.")
	CodeRecipientOrder  = register("e050", http.StatusBadRequest, "O destinatário exige a referência da encomenda.", "The recipient requires the order reference.")
	CodeInvalidAuth     = register("e069", http.StatusUnauthorized, "Autenticação inválida.", "Invalid authentication.")
	CodeNotParty        = register("e199", http.StatusBadRequest, "A entidade não é cliente nem fornecedor do documento.", "The entity is neither customer nor supplier of the document.")
	CodeAlreadyExists   = register("e200", http.StatusBadRequest, "O documento já existe e não pode ser editado.", "The document already exists and cannot be edited.")
	CodeInvalidDocument = register("e217", http.StatusBadRequest, "O documento não é válido.", "The document is not valid.")

	CodeRequired           = register("e301", http.StatusBadRequest, "Campo obrigatório.", "This field is required.")
	CodeInvalidValue       = register("e302", http.StatusBadRequest, "Valor inválido.", "Invalid value.")
	CodeBadCredentials     = register("e310", http.StatusUnauthorized, "Credenciais de cliente inválidas.", "Invalid client credentials.")
	CodeStaleTimestamp     = register("e311", http.StatusUnauthorized, "O timestamp está fora do intervalo permitido; acerte o relógio.", "The timestamp is outside the allowed window; check your clock.")
	CodeNonceReused        = register("e312", http.StatusUnauthorized, "O nonce já foi usado; gere um novo em cada pedido.", "The nonce was already used; send a fresh one with every request.")
	CodeUnsupportedGrant   = register("e313", http.StatusBadRequest, "Tipo de concessão não suportado; use client_credentials.", "Unsupported grant type; use client_credentials.")
	CodeInvalidScope       = register("e314", http.StatusBadRequest, "Âmbito não concedido a este cliente.", "Scope not granted to this client.")
	CodeMissingScope       = register("e320", http.StatusForbidden, "O token não tem o âmbito necessário para esta operação.", "The token lacks the scope this operation needs.")
	CodeNotFound           = register("e330", http.StatusNotFound, "Recurso não encontrado.", "Resource not found.")
	CodeMethodNotAllowed   = register("e331", http.StatusMethodNotAllowed, "Método não permitido.", "Method not allowed.")
	CodeBodyTooLarge       = register("e332", http.StatusRequestEntityTooLarge, "O pedido excede o tamanho máximo.", "The request body is too large.")
	CodeUnsupportedMedia   = register("e333", http.StatusUnsupportedMediaType, "Tipo de conteúdo não suportado.", "Unsupported content type.")
	CodeRateLimited        = register("e334", http.StatusTooManyRequests, "Demasiados pedidos; aguarde antes de tentar novamente.", "Too many requests; wait before trying again.")
	CodeBadRequest         = register("e335", http.StatusBadRequest, "Pedido inválido.", "Bad request.")
	CodeServiceUnavailable = register("e336", http.StatusServiceUnavailable, "Serviço indisponível.", "Service unavailable.")
	CodeUnknownField       = register("e337", http.StatusBadRequest, "Campo desconhecido.", "Unknown field.")
	CodeBusy               = register("e366", http.StatusServiceUnavailable, "O serviço está ocupado com outros envios grandes; tente novamente daqui a pouco.", "The service is busy with other large uploads; try again shortly.")
	CodeBodyTimeout        = register("e367", http.StatusRequestTimeout, "O corpo do pedido não chegou a tempo.", "The request body did not arrive in time.")
	CodeAuthThrottled      = register("e368", http.StatusTooManyRequests, "Demasiadas autenticações falhadas; aguarde antes de tentar novamente.", "Too many failed authentications; wait before trying again.")
	CodeTestIssuer         = register("e340", http.StatusBadRequest, "Em ambiente de testes só as entidades de teste podem emitir documentos.", "In the test environment only the test entities may issue documents.")
	CodeTestRecipient      = register("e341", http.StatusBadRequest, "Em ambiente de testes o destinatário tem de ser a outra entidade de teste, ou o envio ser por e-mail a um consumidor.", "In the test environment the recipient must be the other test entity, or the document must go by e-mail to a consumer.")
	CodeAttachmentTooLarge = register("e342", http.StatusBadRequest, "O anexo excede 15 000 KB, o limite do CIUS-PT.", "The attachment exceeds 15,000 KB, the CIUS-PT limit.")
	CodeAttachmentType     = register("e343", http.StatusBadRequest, "Tipo de ficheiro não aceite pelo CIUS-PT (PDF, PNG, JPEG, CSV, XML, texto, Word ou Excel).", "File type not accepted by CIUS-PT (PDF, PNG, JPEG, CSV, XML, text, Word or Excel).")
	CodeUnknownEvents      = register("e339", http.StatusBadRequest, "Há eventos desconhecidos ou já lidos; nenhum foi marcado.", "Some events are unknown or already read; none was marked.")
	CodeRejectedNoImport   = register("e344", http.StatusBadRequest, "Um documento rejeitado não pode ser importado.", "A rejected document cannot be imported.")
	CodeFinalState         = register("e345", http.StatusBadRequest, "O documento já foi aceite ou rejeitado; o estado é final.", "The document was already accepted or rejected; that state is final.")
	CodeProcessStatesOff   = register("e346", http.StatusBadRequest, "Os estados de processamento não estão ativos para esta entidade.", "Process states are not enabled for this entity.")
	CodeSealUnusable       = register("e347", http.StatusBadRequest, "O selo da entidade não pode assinar: o certificado está fora do período de validade.", "The entity's seal cannot sign: its certificate is outside its validity period.")
	CodeSealUnreadable     = register("e361", http.StatusBadRequest, "O ficheiro do selo não abre: palavra-passe errada ou não é PKCS#12.", "The seal file cannot be opened: wrong password, or not PKCS#12.")
	CodeSealOtherParty     = register("e362", http.StatusBadRequest, "O certificado do selo identifica outra organização.", "The seal's certificate names another organisation.")
	CodeExists             = register("e360", http.StatusConflict, "Já existe.", "It exists already.")
	CodePDFUnsignable      = register("e364", http.StatusBadRequest, "O PDF não pode ser assinado: não é um PDF legível (danificado ou cifrado).", "The PDF cannot be signed: it is not a readable PDF (damaged or encrypted).")
	CodeSealCannotSign     = register("e365", http.StatusBadRequest, "O selo da entidade não consegue assinar; o suporte tem de o verificar. Nada foi feito sem assinatura.", "The entity's seal cannot sign; support must check it. Nothing was made unsigned.")
	CodeAmountMismatch     = register("e338", http.StatusBadRequest, "O valor enviado difere do calculado pelo serviço em mais de 0,01.", "The amount sent differs from the one the service computes by more than 0.01.")
	CodeRequestTimeout     = register("e369", http.StatusServiceUnavailable, "O pedido excedeu o tempo máximo de processamento; nada foi feito.", "The request took longer than the service allows; nothing was done.")
	CodeUsernameTaken      = register("e370", http.StatusBadRequest, "Esse nome de utilizador já existe.", "That username is taken.")
	CodeWeakPassword       = register("e371", http.StatusBadRequest, "A palavra-passe tem de ter pelo menos 10 caracteres.", "The password must have at least 10 characters.")
	CodeLoginFailed        = register("e372", http.StatusUnauthorized, "Utilizador ou palavra-passe errados.", "Wrong username or password.")
	CodeWrongPassword      = register("e373", http.StatusBadRequest, "A palavra-passe atual está errada.", "The current password is wrong.")
	CodeInternal           = register("e399", http.StatusInternalServerError, "Erro interno; indique o identificador do pedido ao suporte.", "Internal error; give the request id to support.")
)
