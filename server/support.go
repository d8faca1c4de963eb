package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"einvoice/signing"
	"einvoice/store"
	"einvoice/ubl/taxid"
)

// The support team's operations: entities and their settings, the platform credentials and what they may
// act for, connections, recipient rules, process states, webhooks and seals. The admin commands call
// these today and the portal's support console will; reads go to the store.

// Bounds of what the support team types.
const (
	maxNameLength        = 200
	maxDescriptionLength = 1000
	maxProcessStateCode  = 50
	maxURLLength         = 2000
	minWebhookKey        = 16
	maxWebhookKey        = 500
	maxAddressLength     = 254

	// MaxSealFile bounds a seal's PKCS#12 file.
	MaxSealFile = 1 << 20
)

// ErrorCode is the registry's code of an error a workflow method returned; CodeInternal for an error
// it does not know. A FieldErrors carries a code per field instead.
func ErrorCode(err error) *Code { return codeFor(err) }

// FormCode tells whether a code says a value has the wrong form (missing, invalid or unknown), as
// opposed to a well-formed request the service refuses.
func FormCode(c *Code) bool {
	return c == CodeRequired || c == CodeInvalidValue || c == CodeUnknownField
}

// notFound maps the store's ErrNotFound onto the registry.
func asNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fail(CodeNotFound)
	}
	return err
}

// exists maps the store's ErrConflict onto the registry.
func asExists(err error) error {
	if errors.Is(err, store.ErrConflict) {
		return fail(CodeExists)
	}
	return err
}

// requiredText trims a text that must be given and checks its length in characters.
func requiredText(errs FieldErrors, field string, v *string, max int) {
	*v = strings.TrimSpace(*v)
	switch {
	case *v == "":
		errs[field] = Problem{Code: CodeRequired}
	case len([]rune(*v)) > max:
		errs[field] = Problem{Code: CodeInvalidValue}
	}
}

// optionalText trims a text that may be empty and checks its length in characters.
func optionalText(errs FieldErrors, field string, v *string, max int) {
	*v = strings.TrimSpace(*v)
	if len([]rune(*v)) > max {
		errs[field] = Problem{Code: CodeInvalidValue}
	}
}

// orNil is nil for no field errors, so that a clean check returns a nil error.
func (e FieldErrors) orNil() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// validTaxID checks a tax ID: a Portuguese NIF with its check digit, or another country's identifier.
func validTaxID(errs FieldErrors, country, nif string) {
	switch {
	case !taxid.ValidCountry(country):
		errs["country"] = Problem{Code: CodeInvalidValue}
	case country == "PT" && taxid.ValidNIF(nif) != nil, nif == "", len(nif) > 20:
		errs["nif"] = Problem{Code: CodeInvalidValue}
	}
}

// CreateEntity registers an entity; its tax ID is unique.
func (w *Workflow) CreateEntity(ctx context.Context, n store.NewEntity) (store.Entity, error) {
	errs := FieldErrors{}
	requiredText(errs, "name", &n.Name, maxNameLength)
	validTaxID(errs, n.Country, n.NIF)
	if n.Transactions < 0 {
		errs["transactions"] = Problem{Code: CodeInvalidValue}
	}
	if err := errs.orNil(); err != nil {
		return store.Entity{}, err
	}
	e, err := w.store.CreateEntity(ctx, n)
	if err != nil {
		return e, asExists(err)
	}
	return e, w.audit(ctx, "entity.create", EntityKey(e), "name", e.Name, "test", e.TestEntity,
		"pays_received", e.PaysReceived, "transactions", e.Transactions)
}

// UpdateEntity changes an entity's settings; nil fields stay as they are, empty mail settings fall back
// to the installation's.
func (w *Workflow) UpdateEntity(ctx context.Context, id int64, ch store.EntityChanges) (store.Entity, error) {
	errs := FieldErrors{}
	if ch.Name != nil {
		requiredText(errs, "name", ch.Name, maxNameLength)
	}
	if ch.Transactions != nil && *ch.Transactions < 0 {
		errs["transactions"] = Problem{Code: CodeInvalidValue}
	}
	if ch.MailFromName != nil {
		optionalText(errs, "mail_from_name", ch.MailFromName, maxNameLength)
	}
	for field, a := range map[string]*string{"mail_from": ch.MailFromAddress, "mail_reply_to": ch.MailReplyTo} {
		if a == nil {
			continue
		}
		if *a = strings.TrimSpace(*a); *a != "" && (len(*a) > maxAddressLength || !reEmail.MatchString(*a)) {
			errs[field] = Problem{Code: CodeInvalidValue}
		}
	}
	if err := errs.orNil(); err != nil {
		return store.Entity{}, err
	}
	e, err := w.store.UpdateEntity(ctx, id, ch)
	if err != nil {
		return e, asNotFound(err)
	}
	return e, w.audit(ctx, "entity.update", EntityKey(e), entityChanges(ch)...)
}

// entityChanges lists the fields a change sets, as the audit log's key/value pairs.
func entityChanges(ch store.EntityChanges) []any {
	var kv []any
	addChange(&kv, "name", ch.Name)
	addChange(&kv, "pays_received", ch.PaysReceived)
	addChange(&kv, "transactions", ch.Transactions)
	addChange(&kv, "process_states", ch.ProcessStatesEnabled)
	addChange(&kv, "signs_itself", ch.SignsItself)
	addChange(&kv, "test", ch.TestEntity)
	addChange(&kv, "mail_from_name", ch.MailFromName)
	addChange(&kv, "mail_from", ch.MailFromAddress)
	addChange(&kv, "mail_reply_to", ch.MailReplyTo)
	addChange(&kv, "mail_xml", ch.MailAttachXML)
	return kv
}

// addChange adds a key and its value to kv when the value is given.
func addChange[T any](kv *[]any, key string, v *T) {
	if v != nil {
		*kv = append(*kv, key, *v)
	}
}

// entity reads an entity a support operation names.
func (w *Workflow) existingEntity(ctx context.Context, id int64) (store.Entity, error) {
	e, err := w.store.EntityByID(ctx, id)
	return e, asNotFound(err)
}

// SetRecipientRule requires (on) or stops requiring a field on what an entity receives, and returns the
// entity's rules.
func (w *Workflow) SetRecipientRule(ctx context.Context, entityID int64, rule string, on bool) ([]string, error) {
	if !slices.Contains(RecipientRuleNames, rule) {
		return nil, FieldErrors{"rule": {Code: CodeInvalidValue, Details: RecipientRuleNames}}
	}
	e, err := w.existingEntity(ctx, entityID)
	if err != nil {
		return nil, err
	}
	if err := w.store.SetRecipientRule(ctx, entityID, rule, on); err != nil {
		return nil, err
	}
	action := "rule.remove"
	if on {
		action = "rule.add"
	}
	if err := w.audit(ctx, action, EntityKey(e), "rule", rule); err != nil {
		return nil, err
	}
	return w.store.RecipientRules(ctx, entityID)
}

// CreateProcessState adds a process state an entity can set on what it receives; its code is unique
// for the entity.
func (w *Workflow) CreateProcessState(ctx context.Context, p store.ProcessState) (store.ProcessState, error) {
	errs := FieldErrors{}
	requiredText(errs, "code", &p.Code, maxProcessStateCode)
	requiredText(errs, "name", &p.Name, maxNameLength)
	optionalText(errs, "description", &p.Description, maxDescriptionLength)
	if err := errs.orNil(); err != nil {
		return p, err
	}
	e, err := w.existingEntity(ctx, p.EntityID)
	if err != nil {
		return p, err
	}
	if p, err = w.store.CreateProcessState(ctx, p); err != nil {
		return p, asExists(err)
	}
	return p, w.audit(ctx, "processstate.create", EntityKey(e), "code", p.Code, "name", p.Name)
}

// DeleteProcessState removes one of an entity's process states.
func (w *Workflow) DeleteProcessState(ctx context.Context, entityID int64, code string) error {
	code = strings.TrimSpace(code)
	if err := w.store.DeleteProcessState(ctx, entityID, code); err != nil {
		return asNotFound(err)
	}
	return w.audit(ctx, "processstate.delete", w.entitySubject(ctx, entityID), "code", code)
}

// CreateWebhook posts an entity's document events to an http(s) address, with a key sent as Bearer and
// used to sign (Standard Webhooks).
func (w *Workflow) CreateWebhook(ctx context.Context, entityID int64, target, key string, events []string) (store.Webhook, error) {
	errs := FieldErrors{}
	list := checkWebhook(errs, target, key, true, events)
	if err := errs.orNil(); err != nil {
		return store.Webhook{}, err
	}
	e, err := w.existingEntity(ctx, entityID)
	if err != nil {
		return store.Webhook{}, err
	}
	wh, err := w.store.CreateWebhook(ctx, store.Webhook{EntityID: entityID, URL: target, Key: key, Events: list})
	if err != nil {
		return wh, err
	}
	return wh, w.audit(ctx, "webhook.create", EntityKey(e), "id", wh.ID, "url", wh.URL, "events", strings.Join(list, ","))
}

// DeleteWebhook stops a webhook.
func (w *Workflow) DeleteWebhook(ctx context.Context, id int64) error {
	if err := w.store.DeleteWebhook(ctx, id); err != nil {
		return asNotFound(err)
	}
	return w.audit(ctx, "webhook.delete", fmt.Sprintf("webhook %d", id))
}

// connectionStateNames are the states the support team can give a connection.
var connectionStateNames = []string{store.ConnAnalyzing, store.ConnApproved, store.ConnDeclined, store.ConnPending}

// CreateConnection records a connection between two entities of this installation, or between an
// entity here and an external tax ID reached through an AS2 partner or an upstream broker (analyzing
// unless a state is given); there is at most one between the same two parties.
func (w *Workflow) CreateConnection(ctx context.Context, n store.NewConnection) (store.Connection, error) {
	errs := FieldErrors{}
	n.State = cmp.Or(n.State, store.ConnAnalyzing)
	if !slices.Contains(connectionStateNames, n.State) {
		errs["state"] = Problem{Code: CodeInvalidValue, Details: connectionStateNames}
	}
	if n.FromEntityID == n.ToEntityID {
		errs["to"] = Problem{Code: CodeInvalidValue}
	}
	optionalText(errs, "observation", &n.Observation, maxDescriptionLength)
	if err := errs.orNil(); err != nil {
		return store.Connection{}, err
	}
	for _, side := range []struct {
		id       *int64
		external *store.PartyKey
	}{{&n.FromEntityID, &n.FromExternal}, {&n.ToEntityID, &n.ToExternal}} {
		if *side.id == 0 {
			continue
		}
		e, err := w.existingEntity(ctx, *side.id)
		if err != nil {
			return store.Connection{}, err
		}
		// An entity that only stands for the issuer of documents received by EDI is an external party.
		if external, err := w.store.IsExternalIssuer(ctx, e.ID); err != nil {
			return store.Connection{}, err
		} else if external {
			*side.id, *side.external = 0, store.PartyKey{Country: e.Country, NIF: e.NIF, Name: e.Name}
		}
	}
	if (n.FromEntityID == 0 || n.ToEntityID == 0) && n.Partner == "" && n.Upstream == "" {
		return store.Connection{}, fieldError("partner", CodeRequired)
	}
	c, err := w.store.CreateConnection(ctx, n)
	if err != nil {
		return c, asExists(err)
	}
	return c, w.audit(ctx, "connection.create", c.PublicID, "from", c.From.Country+c.From.NIF, "to", c.To.Country+c.To.NIF,
		"state", c.State, "observation", c.Observation)
}

// SetConnectionState approves, declines, or puts back in analysis or pending, a connection; the reason
// is shown to the requester (see DecideConnection).
func (w *Workflow) SetConnectionState(ctx context.Context, id int64, state, reason string) (store.Connection, error) {
	return w.DecideConnection(ctx, id, ConnectionDecision{State: state, Reason: reason})
}

// scopesOf checks the scopes asked for a credential and puts them in the order tokens list them.
func scopesOf(errs FieldErrors, asked []string) []string {
	var out []string
	for _, s := range AllScopes {
		if slices.Contains(asked, s) {
			out = append(out, s)
		}
	}
	for _, s := range asked {
		if !slices.Contains(AllScopes, s) {
			errs["scopes"] = Problem{Code: CodeInvalidValue, Details: AllScopes}
		}
	}
	if len(asked) == 0 {
		errs["scopes"] = Problem{Code: CodeRequired, Details: AllScopes}
	}
	return out
}

// CreateClient registers an integrator's OAuth client; the secret is returned only now.
func (w *Workflow) CreateClient(ctx context.Context, name string, scopes []string) (store.Credential, string, error) {
	errs := FieldErrors{}
	requiredText(errs, "name", &name, maxNameLength)
	scopes = scopesOf(errs, scopes)
	if err := errs.orNil(); err != nil {
		return store.Credential{}, "", err
	}
	c, secret, err := w.store.CreateClient(ctx, name, scopes)
	if err != nil {
		return c, "", err
	}
	return c, secret, w.audit(ctx, "client.create", c.ClientID, "name", c.Name, "scopes", strings.Join(c.Scopes, ","))
}

// CreatePlatformToken registers a legacy platform token; the token is returned only now.
func (w *Workflow) CreatePlatformToken(ctx context.Context, name string, scopes []string) (store.Credential, string, error) {
	errs := FieldErrors{}
	requiredText(errs, "name", &name, maxNameLength)
	scopes = scopesOf(errs, scopes)
	if err := errs.orNil(); err != nil {
		return store.Credential{}, "", err
	}
	c, token, err := w.store.CreatePlatformToken(ctx, name, scopes)
	if err != nil {
		return c, "", err
	}
	return c, token, w.audit(ctx, "token.create", tokenSubject(c), "name", c.Name, "scopes", strings.Join(c.Scopes, ","))
}

// tokenSubject names a platform token in the audit log.
func tokenSubject(c store.Credential) string { return fmt.Sprintf("token %d", c.ID) }

// client reads an OAuth client by its client_id.
func (w *Workflow) client(ctx context.Context, clientID string) (store.Credential, error) {
	if clientID == "" {
		return store.Credential{}, fieldError("client", CodeRequired)
	}
	c, err := w.store.CredentialByClientID(ctx, clientID)
	return c, asNotFound(err)
}

// platformToken reads a legacy platform token by its id.
func (w *Workflow) platformToken(ctx context.Context, id int64) (store.Credential, error) {
	if id <= 0 {
		return store.Credential{}, fieldError("id", CodeRequired)
	}
	c, err := w.store.CredentialByID(ctx, id)
	if err == nil && c.Kind != store.KindPlatform {
		err = store.ErrNotFound
	}
	return c, asNotFound(err)
}

// DisableClient disables an OAuth client and revokes its access tokens.
func (w *Workflow) DisableClient(ctx context.Context, clientID string) (store.Credential, error) {
	c, err := w.client(ctx, clientID)
	if err != nil {
		return c, err
	}
	if err := w.store.DisableCredential(ctx, c.ID); err != nil {
		return c, err
	}
	return c, w.audit(ctx, "client.disable", c.ClientID)
}

// RevokePlatformToken disables a legacy platform token and revokes its access tokens.
func (w *Workflow) RevokePlatformToken(ctx context.Context, id int64) (store.Credential, error) {
	c, err := w.platformToken(ctx, id)
	if err != nil {
		return c, err
	}
	if err := w.store.DisableCredential(ctx, c.ID); err != nil {
		return c, err
	}
	return c, w.audit(ctx, "token.revoke", tokenSubject(c))
}

// AuthorizeClient lets an OAuth client act for an entity.
func (w *Workflow) AuthorizeClient(ctx context.Context, clientID string, entityID int64) (store.Credential, error) {
	c, err := w.client(ctx, clientID)
	if err != nil {
		return c, err
	}
	return c, w.authorize(ctx, c, "client.authorize", c.ClientID, entityID)
}

// AuthorizePlatformToken lets a legacy platform token act for an entity once the entity's handshake
// (POST /apps/authentications) is done.
func (w *Workflow) AuthorizePlatformToken(ctx context.Context, id, entityID int64) (store.Credential, error) {
	c, err := w.platformToken(ctx, id)
	if err != nil {
		return c, err
	}
	return c, w.authorize(ctx, c, "token.authorize", tokenSubject(c), entityID)
}

// authorize lets a credential act for an entity; action and subject name it in the audit log.
func (w *Workflow) authorize(ctx context.Context, c store.Credential, action, subject string, entityID int64) error {
	e, err := w.existingEntity(ctx, entityID)
	if err != nil {
		return err
	}
	if err := w.store.Authorize(ctx, c.ID, entityID); err != nil {
		return err
	}
	return w.audit(ctx, action, subject, "entity", EntityKey(e))
}

// ImportSeal reads a PKCS#12 file and keeps it as the entity's seal (its key encrypted): from now on
// the service signs what the entity issues. A seal that has expired, or whose certificate names another
// organisation, is refused.
func (w *Workflow) ImportSeal(ctx context.Context, entityID int64, p12 []byte, password string) (store.Seal, error) {
	if len(p12) > MaxSealFile {
		return store.Seal{}, FieldErrors{"file": {Code: CodeInvalidValue, Details: map[string]int{"max_bytes": MaxSealFile}}}
	}
	e, err := w.existingEntity(ctx, entityID)
	if err != nil {
		return store.Seal{}, err
	}
	seal, err := signing.LoadPKCS12(p12, password)
	if err != nil {
		return store.Seal{}, FieldErrors{"file": {Code: CodeSealUnreadable, Details: err.Error()}}
	}
	if err := sealFits(seal, e, w.now()); err != nil {
		return store.Seal{}, err
	}
	if err := KeepSeal(ctx, w.store, e.ID, seal); err != nil {
		return store.Seal{}, err
	}
	kept, err := w.store.SealOf(ctx, e.ID)
	if err != nil {
		return kept, err
	}
	return kept, w.audit(ctx, "seal.import", EntityKey(e), "subject", kept.Subject, "not_after", kept.NotAfter)
}

// sealFits refuses a seal that cannot sign for the entity: expired, or naming another organisation.
func sealFits(seal *signing.Seal, e store.Entity, now time.Time) error {
	if err := seal.ValidAt(now); errors.Is(err, signing.ErrSealExpired) {
		return FieldErrors{"file": {Code: CodeSealUnusable, Details: err.Error()}}
	}
	if id := seal.OrganisationID(); id != "" && !strings.Contains(id, e.NIF) {
		return FieldErrors{"file": {Code: CodeSealOtherParty, Details: id}}
	}
	return nil
}

// DeleteSeal forgets an entity's seal: the service stops signing for it.
func (w *Workflow) DeleteSeal(ctx context.Context, entityID int64) error {
	if err := w.store.DeleteSeal(ctx, entityID); err != nil {
		return asNotFound(err)
	}
	return w.audit(ctx, "seal.delete", w.entitySubject(ctx, entityID))
}
