package web

// The view models of the support console (/portal/admin/…) and of an entity's connections.

// Console is what every page of the support console has: the frame, the console's own menu, and the
// refusal of the form that led here, by field.
type Console struct {
	Base
	Tabs   []NavLink
	Errors map[string]*FieldError
}

// EntitiesPage lists every entity, with the form that creates one.
type EntitiesPage struct {
	Console
	Rows []EntityRow
}

// EntityRow is an entity in the console's table.
type EntityRow struct {
	Href, Name, TaxID, PublicKey string
	Test, PaysReceived, Sealed   bool
	Transactions                 int64
}

// EntityPage is one entity's settings, as the support team edits them.
type EntityPage struct {
	Console
	ID                 string
	Name, TaxID, Key   string
	Test, PaysReceived bool
	ProcessStates      bool
	SignsItself        bool
	Transactions       int64
	Rules              []RuleChoice
	Created, Updated   string
}

// RuleChoice is a field an entity may require on what it receives.
type RuleChoice struct {
	Name, Label string
	On          bool
}

// CredentialsPage lists the OAuth clients and platform tokens. Secret is the secret (or token) of the
// credential just created: shown on this page once, never again.
type CredentialsPage struct {
	Console
	Clients       []CredentialRow
	Tokens        []CredentialRow
	Scopes        []Option
	EntityOptions []Option
	Created       *CreatedCredential
}

// CredentialRow is a client or token with the entities it may act for.
type CredentialRow struct {
	ID, Name, ClientID, Scopes string
	Disabled                   bool
	Entities                   []string // names with tax ID; a token's with "(handshake)" when done
}

// CreatedCredential is a credential just created, with its secret.
type CreatedCredential struct {
	Kind, Name, ClientID, Secret string
}

// ConnectionsPage lists connections: every one in the console (with the review form), the chosen
// entity's on /portal/connections (with the request form).
type ConnectionsPage struct {
	Console
	Rows   []ConnectionRow
	States []Option // the states the support team can set
	State  string   // the console's state filter
	Total  int
	Pager  Pager
	CanAsk bool   // the user may request a connection for the entity
	NIF    string // the request form's values after a refusal
	Note   string
	// Partners and Upstreams are the console's choices of what a connection goes through.
	Partners, Upstreams []string
}

// ConnectionRow is one connection.
type ConnectionRow struct {
	ID                string
	From, FromTaxID   string
	To, ToTaxID       string
	Direction         string // on an entity's page: requested or received, translated
	State, StateLabel string
	Observation       string
	Reason, ReasonAt  string
	AdminObservation  string
	Partner, Upstream string // the AS2 partner or upstream broker it goes through, if any
	Created, Updated  string
}

// SealsPage lists every entity's seal, with the import form.
type SealsPage struct {
	Console
	Rows          []SealRow
	EntityOptions []Option
}

// SealRow is an entity's seal.
type SealRow struct {
	EntityID, Entity, TaxID string
	Subject, Issuer, Serial string
	NotBefore, NotAfter     string
	Expired, ExpiresSoon    bool
}

// UsersPage lists the portal's users, with the forms that create and change them.
type UsersPage struct {
	Console
	Rows          []ConsoleUserRow
	Roles         []Option
	EntityOptions []Option
}

// ConsoleUserRow is a portal user and its roles, as the support console lists them.
type ConsoleUserRow struct {
	Username string
	Support  bool
	Disabled bool
	Roles    []string // "role at entity", translated
	Created  string
}

// EmailsPage lists the e-mails of documents and, in demo mode, the outbox folder's files.
type EmailsPage struct {
	Console
	States        []Option
	EntityOptions []Option
	Rows          []EmailRow
	Outbox        []OutboxRow
	OutboxDir     string // empty when the service keeps no outbox folder
}

// EmailRow is one e-mail of a document.
type EmailRow struct {
	Address, State, StateLabel, Attempts, Sent, Opened, NextTry, Error, Created string
}

// OutboxRow is one .eml file of the outbox folder.
type OutboxRow struct {
	Href, Date, To, Subject string
	Size                    int64
}

// OutboxMessagePage shows one .eml file as text.
type OutboxMessagePage struct {
	Console
	File, To, Subject, Date string
	Text                    string
}

// WebhookAttemptsPage lists the latest webhook deliveries of every entity.
type WebhookAttemptsPage struct {
	Console
	Rows []WebhookAttemptRow
}

// WebhookAttemptRow is one delivery attempt.
type WebhookAttemptRow struct {
	When, Entity, URL, Attempt, Status, Latency, Error string
	OK                                                 bool
}

// AuditPage is the audit log with its filter.
type AuditPage struct {
	Console
	Filter AuditFilter
	Rows   []AuditRow
	Total  int
	Pager  Pager
}

// AuditFilter is the filter form's values, as the URL had them.
type AuditFilter struct {
	Actor, Action, Subject, From, To string
}

// AuditRow is one change.
type AuditRow struct {
	When, Actor, ActorKind, Action, Subject, Detail string
}
