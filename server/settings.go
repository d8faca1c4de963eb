package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"einvoice/store"
	"einvoice/ubl/taxid"
)

// An entity's own settings, as its administrators keep them in the portal: the company profile (the
// supplier's defaults of the data method), the sender of its e-mails, the notification e-mails to its
// users, its webhooks and their delivery log, and its users. Every method takes the entity's id; the
// front end has checked that the caller administers it.

// Bounds of the settings.
const (
	maxProfileText    = 200
	maxProfileShort   = 50
	maxNoticeCopies   = 10
	maxDeliveriesShow = 100
	maxEntityWebhooks = 20
	maxProcessStates  = 100
)

var (
	rePostalZonePT = regexp.MustCompile(`^[0-9]{4}-[0-9]{3}$`)
	reTelephone    = regexp.MustCompile(`^[0-9+() .-]{3,30}$`)
	reIBAN         = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$`)
	reGLN          = regexp.MustCompile(`^[0-9]{13}$`)
)

// EntitySettings is everything the settings pages show of an entity.
type EntitySettings struct {
	Entity         store.Entity
	Profile        store.Profile
	Notifications  store.Notifications
	Webhooks       []store.Webhook
	Deliveries     []store.WebhookDelivery
	ProcessStates  []store.ProcessState
	RecipientRules []string
	Seal           *store.Seal // nil when the entity has none
	Users          []store.User
}

// Settings reads an entity's settings.
func (w *Workflow) Settings(ctx context.Context, entityID int64) (EntitySettings, error) {
	var s EntitySettings
	var err error
	if s.Entity, err = w.existingEntity(ctx, entityID); err != nil {
		return s, err
	}
	if s.Profile, err = w.store.ProfileOf(ctx, entityID); err != nil {
		return s, err
	}
	if s.Notifications, err = w.store.NotificationsOf(ctx, entityID); err != nil {
		return s, err
	}
	if s.Webhooks, err = w.store.Webhooks(ctx, entityID); err != nil {
		return s, err
	}
	if s.Deliveries, err = w.WebhookAttempts(ctx, entityID, maxDeliveriesShow); err != nil {
		return s, err
	}
	if s.ProcessStates, err = w.store.ProcessStates(ctx, entityID); err != nil {
		return s, err
	}
	if s.RecipientRules, err = w.store.RecipientRules(ctx, entityID); err != nil {
		return s, err
	}
	switch seal, err := w.store.SealOf(ctx, entityID); {
	case err == nil:
		s.Seal = &seal
	case !errors.Is(err, store.ErrNotFound):
		return s, err
	}
	s.Users, err = w.store.EntityUsers(ctx, entityID)
	return s, err
}

// UpdateProfile replaces an entity's name and company profile. Texts are trimmed; the country is an
// ISO code (empty: the entity's), a Portuguese postal code has the form 0000-000, the IBAN and the GLN
// must pass their check digits.
func (w *Workflow) UpdateProfile(ctx context.Context, entityID int64, name string, p store.Profile) (store.Profile, error) {
	errs := FieldErrors{}
	requiredText(errs, "name", &name, maxNameLength)
	for field, v := range map[string]*string{"street": &p.Street, "additional_street": &p.AdditionalStreet, "city": &p.City,
		"region": &p.Region, "legal_form": &p.LegalForm} {
		optionalText(errs, field, v, maxProfileText)
	}
	for field, v := range map[string]*string{"building_number": &p.BuildingNumber, "postal_zone": &p.PostalZone,
		"share_capital": &p.ShareCapital, "telephone": &p.Telephone} {
		optionalText(errs, field, v, maxProfileShort)
	}
	p.Country = strings.ToUpper(strings.TrimSpace(p.Country))
	if p.Country != "" && !taxid.ValidCountry(p.Country) {
		errs["country"] = Problem{Code: CodeInvalidValue}
	}
	if p.PostalZone != "" && (p.Country == "PT" || p.Country == "") && !rePostalZonePT.MatchString(p.PostalZone) {
		errs["postal_zone"] = Problem{Code: CodeInvalidPostalZone}
	}
	if p.Email = strings.TrimSpace(p.Email); p.Email != "" && !validAddress(p.Email) {
		errs["email"] = Problem{Code: CodeInvalidValue}
	}
	if p.Telephone != "" && !reTelephone.MatchString(p.Telephone) {
		errs["telephone"] = Problem{Code: CodeInvalidValue}
	}
	if p.IBAN = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(p.IBAN), " ", "")); p.IBAN != "" && !validIBAN(p.IBAN) {
		errs["iban"] = Problem{Code: CodeInvalidIBAN}
	}
	if p.GLN = strings.TrimSpace(p.GLN); p.GLN != "" && !validGLN(p.GLN) {
		errs["gln"] = Problem{Code: CodeInvalidGLN}
	}
	if err := errs.orNil(); err != nil {
		return p, err
	}
	p, err := w.store.SaveProfile(ctx, entityID, name, p)
	return p, asNotFound(err)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return b
}

func validAddress(a string) bool { return len(a) <= maxAddressLength && reEmail.MatchString(a) }

// validIBAN checks an IBAN's form and its ISO 13616 check digits (mod 97).
func validIBAN(iban string) bool {
	if !reIBAN.MatchString(iban) {
		return false
	}
	var digits strings.Builder
	for _, r := range iban[4:] + iban[:4] {
		if r >= 'A' && r <= 'Z' {
			digits.WriteString(big.NewInt(int64(r - 'A' + 10)).String())
		} else {
			digits.WriteRune(r)
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// validGLN checks a GS1 Global Location Number: 13 digits, the last the GS1 check digit.
func validGLN(gln string) bool {
	if !reGLN.MatchString(gln) {
		return false
	}
	sum := 0
	for i, r := range gln[:12] {
		d := int(r - '0')
		if i%2 == 1 {
			d *= 3
		}
		sum += d
	}
	return (10-sum%10)%10 == int(gln[12]-'0')
}

// UpdateSender sets how the entity's document e-mails go out: the display name, the Reply-To (empty:
// the installation's) and whether the XML goes with the PDF. The From address stays the support
// team's to set: it must be one the installation's mail server may send as.
func (w *Workflow) UpdateSender(ctx context.Context, entityID int64, fromName, replyTo string, attachXML bool) (store.Entity, error) {
	e, err := w.UpdateEntity(ctx, entityID, store.EntityChanges{MailFromName: &fromName, MailReplyTo: &replyTo, MailAttachXML: &attachXML})
	var fe FieldErrors
	if errors.As(err, &fe) { // named as this method's parameters, not as the support team's entity fields
		out := FieldErrors{}
		for field, p := range fe {
			out[strings.TrimPrefix(field, "mail_")] = p
		}
		return e, out
	}
	return e, err
}

// UpdateNotifications sets which events e-mail the entity's users (those whose username is an
// e-mail address) and the addresses that get a copy.
func (w *Workflow) UpdateNotifications(ctx context.Context, entityID int64, onReceived, onRejected bool, cc []string) (store.Notifications, error) {
	n := store.Notifications{OnReceived: onReceived, OnRejected: onRejected, CC: []string{}}
	for _, a := range cc {
		if a = strings.TrimSpace(a); a == "" || slices.Contains(n.CC, a) {
			continue
		}
		if !validAddress(a) {
			return n, FieldErrors{"cc": {Code: CodeInvalidValue, Details: a}}
		}
		n.CC = append(n.CC, a)
	}
	if len(n.CC) > maxNoticeCopies {
		return n, FieldErrors{"cc": {Code: CodeTooManyAddresses, Details: map[string]int{"max": maxNoticeCopies}}}
	}
	if _, err := w.existingEntity(ctx, entityID); err != nil {
		return n, err
	}
	return n, w.store.SaveNotifications(ctx, entityID, n)
}

// entityWebhook reads one of an entity's webhooks; CodeNotFound for another entity's.
func (w *Workflow) entityWebhook(ctx context.Context, entityID, id int64) (store.Webhook, error) {
	hook, err := w.store.WebhookByID(ctx, id)
	if err == nil && hook.EntityID != entityID {
		err = store.ErrNotFound
	}
	return hook, asNotFound(err)
}

// AddEntityWebhook is CreateWebhook for an entity's own administrators, who may have at most
// maxEntityWebhooks. An empty key is generated (Standard Webhooks' "whsec_" and base64 of 24 random
// bytes); the webhook returned carries it, for the caller to show this once.
func (w *Workflow) AddEntityWebhook(ctx context.Context, entityID int64, target, key string, events []string) (store.Webhook, error) {
	if key == "" {
		key = "whsec_" + base64.StdEncoding.EncodeToString(randomBytes(24))
	}
	hooks, err := w.store.Webhooks(ctx, entityID)
	if err != nil {
		return store.Webhook{}, err
	}
	if len(hooks) >= maxEntityWebhooks {
		return store.Webhook{}, FieldErrors{"url": {Code: CodeSettingsLimit, Details: map[string]int{"max": maxEntityWebhooks}}}
	}
	return w.CreateWebhook(ctx, entityID, target, key, events)
}

// AddEntityProcessState is CreateProcessState for an entity's own administrators, who may have at
// most maxProcessStates.
func (w *Workflow) AddEntityProcessState(ctx context.Context, p store.ProcessState) (store.ProcessState, error) {
	states, err := w.store.ProcessStates(ctx, p.EntityID)
	if err != nil {
		return p, err
	}
	if len(states) >= maxProcessStates {
		return p, FieldErrors{"code": {Code: CodeSettingsLimit, Details: map[string]int{"max": maxProcessStates}}}
	}
	return w.CreateProcessState(ctx, p)
}

// UpdateWebhook changes one of an entity's webhooks: its address and events, and its key when one is
// given (empty keeps the key it has).
func (w *Workflow) UpdateWebhook(ctx context.Context, entityID, id int64, target, key string, events []string) (store.Webhook, error) {
	errs := FieldErrors{}
	list := checkWebhook(errs, target, key, key != "", events)
	if err := errs.orNil(); err != nil {
		return store.Webhook{}, err
	}
	if _, err := w.entityWebhook(ctx, entityID, id); err != nil {
		return store.Webhook{}, err
	}
	hook, err := w.store.UpdateWebhook(ctx, id, target, key, list)
	return hook, asNotFound(err)
}

// checkWebhook checks a webhook's address, key (when there is one to check) and events, and returns
// the events without repeats.
func checkWebhook(errs FieldErrors, target, key string, checkKey bool, events []string) []string {
	if u, err := url.Parse(target); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || len(target) > maxURLLength {
		errs["url"] = Problem{Code: CodeInvalidValue}
	}
	if checkKey && (len(key) < minWebhookKey || len(key) > maxWebhookKey) {
		errs["key"] = Problem{Code: CodeInvalidValue, Details: map[string]int{"min": minWebhookKey, "max": maxWebhookKey}}
	}
	var list []string
	for _, ev := range events {
		if !slices.Contains(WebhookEvents, ev) {
			errs["events"] = Problem{Code: CodeInvalidValue, Details: WebhookEvents}
		} else if !slices.Contains(list, ev) {
			list = append(list, ev)
		}
	}
	if len(events) == 0 {
		errs["events"] = Problem{Code: CodeRequired, Details: WebhookEvents}
	}
	return list
}

// DeleteEntityWebhook removes one of an entity's webhooks.
func (w *Workflow) DeleteEntityWebhook(ctx context.Context, entityID, id int64) error {
	if _, err := w.entityWebhook(ctx, entityID, id); err != nil {
		return err
	}
	return w.DeleteWebhook(ctx, id)
}

// TestWebhook sends one of an entity's webhooks a test event now (webhook.test, without a document);
// its attempt shows in the delivery log like any other.
func (w *Workflow) TestWebhook(ctx context.Context, entityID, id int64) error {
	hook, err := w.entityWebhook(ctx, entityID, id)
	if err != nil {
		return err
	}
	if err := w.store.EnqueueWebhookTest(ctx, hook); err != nil {
		return err
	}
	w.jobs.trigger(jobWebhooks)
	return nil
}

// WebhookAttempts is the delivery log of one entity's webhooks or (0) of every entity's, newest first.
func (w *Workflow) WebhookAttempts(ctx context.Context, entityID int64, limit int) ([]store.WebhookDelivery, error) {
	return w.store.WebhookDeliveries(ctx, entityID, max(1, min(limit, 1000)))
}

// RedeliverWebhook delivers the event of one attempt of the log again, now, whether it failed or
// not; the receiver sees the same webhook-id.
func (w *Workflow) RedeliverWebhook(ctx context.Context, entityID, attemptID int64) error {
	a, owner, err := w.store.WebhookAttemptByID(ctx, attemptID)
	if err == nil && owner != entityID {
		err = store.ErrNotFound
	}
	if err != nil {
		return asNotFound(err)
	}
	if err := w.store.RequeueOutbox(ctx, a.OutboxID); err != nil {
		return asNotFound(err)
	}
	w.jobs.trigger(jobWebhooks)
	return nil
}

// entityRoles are the roles an entity's administrator can give.
var entityRoles = []string{store.RoleAdmin, store.RoleOperator, store.RoleViewer}

// AddEntityUser creates a user with a role at the entity and an initial password.
func (w *Workflow) AddEntityUser(ctx context.Context, entityID int64, username, role, password string) (store.User, error) {
	if !slices.Contains(entityRoles, role) {
		return store.User{}, FieldErrors{"role": {Code: CodeInvalidValue, Details: entityRoles}}
	}
	if _, err := w.existingEntity(ctx, entityID); err != nil {
		return store.User{}, err
	}
	return w.CreateUser(ctx, NewUser{Username: username, Password: password, Role: role, EntityID: entityID})
}

// entityUser finds a user with a role at the entity, other than the one acting (who could otherwise
// lock the entity out of its settings).
func (w *Workflow) entityUser(ctx context.Context, entityID, actorID int64, username string) (store.User, error) {
	u, err := w.user(ctx, username)
	if err != nil {
		return u, err
	}
	if !slices.ContainsFunc(u.Memberships, func(m store.Membership) bool { return m.EntityID == entityID }) {
		return u, fieldError("username", CodeNotFound)
	}
	if u.ID == actorID {
		return u, fieldError("username", CodeOwnUser)
	}
	return u, nil
}

// SetEntityUserRole changes the role of one of the entity's users.
func (w *Workflow) SetEntityUserRole(ctx context.Context, entityID, actorID int64, username, role string) (store.User, error) {
	if !slices.Contains(entityRoles, role) {
		return store.User{}, FieldErrors{"role": {Code: CodeInvalidValue, Details: entityRoles}}
	}
	u, err := w.entityUser(ctx, entityID, actorID, username)
	if err != nil {
		return u, err
	}
	return w.GrantRole(ctx, u.Username, entityID, role)
}

// SetEntityUserDisabled disables (ending its sessions) or enables one of the entity's users. A user
// that belongs to other entities too is the support team's to disable.
func (w *Workflow) SetEntityUserDisabled(ctx context.Context, entityID, actorID int64, username string, disabled bool) (store.User, error) {
	u, err := w.entityUser(ctx, entityID, actorID, username)
	if err != nil {
		return u, err
	}
	if len(u.Memberships) > 1 {
		return u, fieldError("username", CodeUserOfOthers)
	}
	return w.SetUserDisabled(ctx, u.Username, disabled)
}
