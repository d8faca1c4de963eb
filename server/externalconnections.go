package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"einvoice/mailer"
	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/ubl/taxid"

	"github.com/labstack/echo/v4"
)

// External connections: an EDI operator asks, through the API, that its client companies (external
// entities, outside this installation) be connected with an entity here; one request per external
// entity. The support team approves, declines or sets them pending, and the operator is told of the
// request and of every change by e-mail, through the outbox and its job.

const jobConnectionMail = "connection_mail"

// maxExternalEntities bounds the external entities of one request.
const maxExternalEntities = 100

// ExternalEntity is one company outside this installation in a connection request.
type ExternalEntity struct {
	Index              int // its index in the form, which names its fields in errors
	Name, NIF, Country string
}

// ConnectionRequest is POST /apps/external-connections: an EDI operator's request for its external
// entities to be connected with an entity here.
type ConnectionRequest struct {
	External      []ExternalEntity
	EntityNIF     string
	EntityCountry string
	OperatorEmail string
	Observation   string
	Lang          string // of the e-mails to the operator
}

// externalField names a field of one external entity as the form does.
func externalField(i int, name string) string {
	return "externalEntities[" + strconv.Itoa(i) + "][external_entity_" + name + "]"
}

// RequestConnections records one connection request per external entity, from it to the entity here,
// asked by the operator (the acting entity), and queues the confirmation e-mails. Every bad field is
// reported by its form name.
func (w *Workflow) RequestConnections(ctx context.Context, operator store.Entity, r ConnectionRequest) ([]store.Connection, error) {
	errs := FieldErrors{}
	r.EntityCountry = strings.ToUpper(strings.TrimSpace(r.EntityCountry))
	r.EntityNIF = strings.TrimSpace(r.EntityNIF)
	checkCountryNIF(errs, "entity_country", "entity_nif", r.EntityCountry, r.EntityNIF)
	requiredText(errs, "operator_email", &r.OperatorEmail, maxAddressLength)
	if _, ok := errs["operator_email"]; !ok {
		if a, err := mail.ParseAddress(r.OperatorEmail); err != nil || a.Address != r.OperatorEmail {
			errs["operator_email"] = Problem{Code: CodeInvalidValue}
		}
	}
	optionalText(errs, "observation", &r.Observation, maxDescriptionLength)
	switch {
	case len(r.External) == 0:
		errs["externalEntities"] = Problem{Code: CodeRequired}
	case len(r.External) > maxExternalEntities:
		errs["externalEntities"] = Problem{Code: CodeInvalidValue}
	}
	seen := map[string]bool{}
	for i := range r.External {
		x := &r.External[i]
		requiredText(errs, externalField(x.Index, "name"), &x.Name, maxNameLength)
		x.Country, x.NIF = strings.ToUpper(strings.TrimSpace(x.Country)), strings.TrimSpace(x.NIF)
		checkCountryNIF(errs, externalField(x.Index, "country"), externalField(x.Index, "nif"), x.Country, x.NIF)
		key := x.Country + x.NIF
		if x.NIF != "" && (seen[key] || key == r.EntityCountry+r.EntityNIF) {
			errs[externalField(x.Index, "nif")] = Problem{Code: CodeInvalidValue}
		}
		seen[key] = true
	}
	if err := errs.orNil(); err != nil {
		return nil, err
	}
	var out []store.Connection
	err := w.store.Update(ctx, func(tx *store.Tx) error {
		out = nil // a transaction that lost a race on PostgreSQL runs again from the start
		receiver, err := tx.EntityByNIF(r.EntityCountry, r.EntityNIF)
		if errors.Is(err, store.ErrNotFound) {
			return fieldError("entity_nif", CodeNotAClient)
		} else if err != nil {
			return err
		}
		for _, x := range r.External {
			if _, err := tx.ExternalConnection(receiver.ID, x.Country, x.NIF); err == nil {
				errs[externalField(x.Index, "nif")] = Problem{Code: CodeConnectionExists}
				continue
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if e, err := tx.EntityByNIF(x.Country, x.NIF); err == nil {
				// An entity of this installation is not external (unless it only stands for the issuer of
				// documents received by EDI): support connects it with the admin commands.
				if external, err := tx.IsExternalIssuer(e.ID); err != nil {
					return err
				} else if !external {
					errs[externalField(x.Index, "nif")] = Problem{Code: CodeInvalidValue}
					continue
				}
			}
			c, err := tx.CreateConnection(store.NewConnection{
				FromExternal: store.PartyKey{Country: x.Country, NIF: x.NIF, Name: x.Name}, ToEntityID: receiver.ID,
				Kind: "inbound", Person: operator.Name, OperatorEntityID: operator.ID, OperatorEmail: r.OperatorEmail,
				Observation: r.Observation,
			})
			if errors.Is(err, store.ErrConflict) {
				errs[externalField(x.Index, "nif")] = Problem{Code: CodeConnectionExists}
				continue
			} else if err != nil {
				return err
			}
			if err := queueConnectionMail(tx, c, "created", r.Lang); err != nil {
				return err
			}
			out = append(out, c)
		}
		return errs.orNil()
	})
	if err != nil {
		return nil, err
	}
	w.jobs.trigger(jobConnectionMail)
	return out, nil
}

// checkCountryNIF checks a country and a tax ID given apart (the tax ID without its prefix).
func checkCountryNIF(errs FieldErrors, countryField, nifField, country, nif string) {
	switch {
	case country == "":
		errs[countryField] = Problem{Code: CodeRequired}
	case !taxid.ValidCountry(country):
		errs[countryField] = Problem{Code: CodeInvalidValue}
	}
	switch {
	case nif == "":
		errs[nifField] = Problem{Code: CodeRequired}
	case len(nif) > 20 || !isAlnum(nif) || country == "PT" && taxid.ValidNIF(nif) != nil:
		errs[nifField] = Problem{Code: CodeInvalidValue}
	}
}

func isAlnum(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return (r < '0' || r > '9') && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z')
	})
}

// ConnectionDecision is the support team's change to a connection: its state, the reason the
// requester sees, the support team's observation, and the partner or upstream that reaches its
// external side (nil keeps what it has).
type ConnectionDecision struct {
	State            string
	Reason           string
	AdminObservation *string
	Partner          *string
	Upstream         *string
	Lang             string // of the e-mail to the operator
}

// DecideConnection applies the support team's change to a connection and tells the operator that
// asked for it by e-mail.
func (w *Workflow) DecideConnection(ctx context.Context, id int64, d ConnectionDecision) (store.Connection, error) {
	errs := FieldErrors{}
	if id <= 0 {
		errs["id"] = Problem{Code: CodeRequired}
	}
	if !slices.Contains(connectionStateNames, d.State) {
		errs["state"] = Problem{Code: CodeInvalidValue, Details: connectionStateNames}
	}
	optionalText(errs, "reason", &d.Reason, maxReasonLength)
	if d.AdminObservation != nil {
		optionalText(errs, "admin_observation", d.AdminObservation, maxDescriptionLength)
	}
	for field, v := range map[string]*string{"partner": d.Partner, "upstream": d.Upstream} {
		if v != nil {
			optionalText(errs, field, v, maxNameLength)
		}
	}
	if err := errs.orNil(); err != nil {
		return store.Connection{}, err
	}
	var c store.Connection
	err := w.store.Update(ctx, func(tx *store.Tx) error {
		var err error
		c, err = tx.ChangeConnection(id, store.ConnectionChange{State: d.State, Reason: d.Reason,
			AdminObservation: d.AdminObservation, Partner: d.Partner, Upstream: d.Upstream})
		if err != nil || c.OperatorEmail == "" {
			return asNotFound(err)
		}
		return queueConnectionMail(tx, c, "state", d.Lang)
	})
	if err != nil {
		return c, err
	}
	if c.OperatorEmail != "" {
		w.jobs.trigger(jobConnectionMail)
	}
	return c, w.audit(ctx, "connection.state", c.PublicID, "state", c.State, "reason", d.Reason,
		"admin_observation", deref(d.AdminObservation), "partner", deref(d.Partner), "upstream", deref(d.Upstream))
}

// deref is the string p points to, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// connectionMail is what an outbox row of kind connection_mail carries.
type connectionMail struct {
	ConnectionID int64  `json:"connection_id"`
	Event        string `json:"event"` // created, state
	State        string `json:"state"` // the state it announces
	Lang         string `json:"lang"`
}

func queueConnectionMail(tx *store.Tx, c store.Connection, event, lang string) error {
	return tx.Enqueue(jobConnectionMail, c.OperatorEntityID, 0, connectionMail{ConnectionID: c.ID, Event: event, State: c.State,
		Lang: cmp.Or(lang, i18n.PT)})
}

// deliverConnectionMail sends the due connection e-mails.
func (s *Server) deliverConnectionMail(ctx context.Context) error {
	return s.deliverMail(ctx, jobConnectionMail, s.composeConnectionMail)
}

// composeConnectionMail writes the e-mail of one outbox row.
func (s *Server) composeConnectionMail(ctx context.Context, item store.OutboxItem) (*mailer.Message, error) {
	var p connectionMail
	if err := json.Unmarshal(item.Payload, &p); err != nil {
		return nil, err
	}
	c, err := s.store.ConnectionByID(ctx, p.ConnectionID)
	if err != nil {
		return nil, fmt.Errorf("connection %d: %w", p.ConnectionID, err)
	}
	parties := []any{c.Reference, c.From.Name, c.From.Country + c.From.NIF, c.To.Name, c.To.Country + c.To.NIF}
	var subject, body string
	if p.Event == "created" {
		subject = i18n.T(p.Lang, "mail.connection.created.subject", c.Reference)
		body = i18n.T(p.Lang, "mail.connection.created.body", append(parties, cmp.Or(c.Observation, "-"))...)
	} else {
		state := i18n.T(p.Lang, "api.connection.state."+p.State)
		subject = i18n.T(p.Lang, "mail.connection.state.subject", c.Reference, state)
		body = i18n.T(p.Lang, "mail.connection.state.body", append(parties, state, cmp.Or(c.Reason, "-"), cmp.Or(c.AdminObservation, "-"))...)
	}
	return mailer.ComposeNotice(mailer.Notice{
		From: mailer.Sender{Name: s.cfg.Mail.FromName, Address: s.cfg.Mail.FromAddress, ReplyTo: s.cfg.Mail.ReplyTo},
		To:   []string{c.OperatorEmail}, Subject: subject, Body: body, Lang: p.Lang,
		MessageID: mailer.NewMessageID(mailer.Domain(s.cfg.Mail.FromAddress)), Date: s.now(),
	})
}

// externalEntityKey is one field of one external entity in the form: externalEntities[i][name].
var externalEntityKey = regexp.MustCompile(`^externalEntities\[(\d{1,3})\]\[(external_entity_name|external_entity_nif|external_entity_country)\]$`)

// createConnections is POST /apps/external-connections (spec 4.4).
func (s *Server) createConnections(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return bodyError(err)
	}
	r := ConnectionRequest{Lang: langOf(c)}
	byIndex := map[int]*ExternalEntity{}
	errs := FieldErrors{}
	for key, values := range form {
		v := first(values)
		switch key {
		case "entity_nif":
			r.EntityNIF = v
		case "entity_country":
			r.EntityCountry = v
		case "operator_email":
			r.OperatorEmail = v
		case "observation":
			r.Observation = v
		default:
			m := externalEntityKey.FindStringSubmatch(key)
			if m == nil {
				errs[key] = Problem{Code: CodeUnknownField}
				continue
			}
			i, _ := strconv.Atoi(m[1])
			if byIndex[i] == nil {
				if len(byIndex) >= maxExternalEntities {
					return fieldError("externalEntities", CodeInvalidValue)
				}
				byIndex[i] = &ExternalEntity{}
			}
			switch m[2] {
			case "external_entity_name":
				byIndex[i].Name = v
			case "external_entity_nif":
				byIndex[i].NIF = v
			default:
				byIndex[i].Country = v
			}
		}
	}
	if err := errs.orNil(); err != nil {
		return err
	}
	for _, i := range slices.Sorted(maps.Keys(byIndex)) {
		x := byIndex[i]
		x.Index = i
		r.External = append(r.External, *x)
	}
	conns, err := s.RequestConnections(c.Request().Context(), actingEntity(c), r)
	if err != nil {
		return err
	}
	type created struct {
		NIF string `json:"external_entity_nif"`
		ID  string `json:"id"`
	}
	out := make([]created, len(conns))
	for i, conn := range conns {
		out[i] = created{conn.From.NIF, conn.PublicID}
	}
	return c.JSON(CodeConnectionAsked.Status, success{Success: "true",
		Message: &successMessage{CodeConnectionAsked.ID, CodeConnectionAsked.Msg(langOf(c))}, Response: out})
}
