package portal

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/ubl/taxid"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// The support console, /portal/admin/…: entities, API credentials, connections, seals, portal users,
// e-mails, webhook deliveries, EDI (admin_edi.go) and the audit log. Only support users reach it; anyone else gets the
// same 404 as for a page that does not exist. Changes go through the workflow's support operations,
// which record each in the audit log under the signed-in user's name.

func (p *Portal) adminRoutes(in *echo.Group) {
	g := in.Group("/admin", p.supportOnly)
	g.GET("", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/portal/admin/entities") })
	g.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/portal/admin/entities") })
	g.GET("/entities", p.page(p.entitiesPage))
	g.POST("/entities", p.change(p.entitiesPage, p.createEntity, "admin.entity_created"))
	g.GET("/entities/:id", p.page(p.entityPage))
	g.POST("/entities/:id", p.change(p.entityPage, p.updateEntity, "admin.entity_saved"))
	g.POST("/entities/:id/rules", p.change(p.entityPage, p.setRule, "admin.entity_saved"))
	g.GET("/credentials", p.page(p.credentialsPage))
	g.POST("/clients", p.createCredential(store.KindClient))
	g.POST("/tokens", p.createCredential(store.KindPlatform))
	g.POST("/clients/:id/disable", p.change(p.credentialsPage, p.disableClient, "admin.credential_disabled"))
	g.POST("/clients/:id/authorize", p.change(p.credentialsPage, p.authorizeClient, "admin.credential_authorized"))
	g.POST("/tokens/:id/revoke", p.change(p.credentialsPage, p.revokeToken, "admin.credential_disabled"))
	g.POST("/tokens/:id/authorize", p.change(p.credentialsPage, p.authorizeToken, "admin.credential_authorized"))
	g.GET("/connections", p.page(p.adminConnectionsPage))
	g.POST("/connections/:id", p.change(p.adminConnectionsPage, p.reviewConnection, "admin.connection_reviewed"))
	g.GET("/seals", p.page(p.sealsPage))
	g.POST("/seals", p.change(p.sealsPage, p.importSeal, "admin.seal_imported"))
	g.POST("/seals/:id/delete", p.change(p.sealsPage, p.deleteSeal, "admin.seal_deleted"))
	g.GET("/users", p.page(p.usersPage))
	g.POST("/users", p.change(p.usersPage, p.createUser, "admin.user_created"))
	g.POST("/users/:username/disable", p.change(p.usersPage, p.setUserDisabled(true), "admin.user_disabled"))
	g.POST("/users/:username/enable", p.change(p.usersPage, p.setUserDisabled(false), "admin.user_enabled"))
	g.POST("/users/:username/password", p.change(p.usersPage, p.resetPassword, "admin.password_reset"))
	g.POST("/users/:username/grant", p.change(p.usersPage, p.grantRole, "admin.role_granted"))
	g.GET("/emails", p.page(p.emailsPage))
	g.GET("/outbox/:file", p.outboxMessage)
	g.GET("/webhooks", p.page(p.webhookAttemptsPage))
	g.GET("/audit", p.page(p.auditPage))
	p.ediRoutes(g)
}

// supportOnly answers anyone but a support user as if the page did not exist.
func (p *Portal) supportOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !current(c).user.Support {
			return p.fail(c, http.StatusNotFound, "error.not_found")
		}
		return next(c)
	}
}

// consolePage renders a console page with a status and the refusal of the form that led to it.
type consolePage func(c echo.Context, status int, errs map[string]*web.FieldError) error

func (p *Portal) page(show consolePage) echo.HandlerFunc {
	return func(c echo.Context) error { return show(c, http.StatusOK, nil) }
}

// change runs a support operation from a form: on success it comes back with a message (to the
// address do returns), on a refusal it shows the page again with the refusal's codes by field.
func (p *Portal) change(show consolePage, do func(c echo.Context) (string, error), done string) echo.HandlerFunc {
	return func(c echo.Context) error {
		next, err := do(c)
		if err != nil {
			codes := server.FieldCodes(err)
			switch {
			case codes == nil:
				return err
			case codes[""] == server.CodeNotFound:
				return p.fail(c, http.StatusNotFound, "error.not_found")
			}
			return show(c, refusalStatus(codes), fieldErrors(codes, current(c).lang))
		}
		p.flash(c, false, done)
		return c.Redirect(http.StatusSeeOther, next)
	}
}

// refusalStatus is the status of a page that shows a refusal: the code's own for a refusal of the
// whole request (409 for one that exists), 400 for fields in the wrong form.
func refusalStatus(codes map[string]*server.Code) int {
	if c := codes[""]; c != nil {
		return c.Status
	}
	return http.StatusBadRequest
}

// consoleTabs are the console's sections.
var consoleTabs = []struct{ href, key string }{
	{"/portal/admin/entities", "admin.entities"}, {"/portal/admin/credentials", "admin.credentials"},
	{"/portal/admin/connections", "admin.connections"}, {"/portal/admin/seals", "admin.seals"},
	{"/portal/admin/users", "admin.users"}, {"/portal/admin/emails", "admin.emails"},
	{"/portal/admin/webhooks", "admin.webhooks"}, {"/portal/admin/as2", "admin.as2"},
	{"/portal/admin/upstreams", "admin.upstreams"}, {"/portal/admin/edi", "admin.edi"}, {"/portal/admin/audit", "admin.audit"},
}

// console is the frame of a console page. It works before any entity exists.
func (p *Portal) console(c echo.Context, titleKey, here string, errs map[string]*web.FieldError) (web.Console, error) {
	r := current(c)
	title := i18n.T(r.lang, titleKey)
	_, b, err := p.base(c, title, "/portal/admin/")
	if codes := server.FieldCodes(err); codes != nil && codes[""] == server.CodeNotFound {
		b, err = web.Base{Title: title, User: r.user.Username, Support: true, Flash: p.takeFlash(c, r.lang)}, nil
	}
	if err != nil {
		return web.Console{}, err
	}
	v := web.Console{Base: b, Errors: errs}
	for _, t := range consoleTabs {
		v.Tabs = append(v.Tabs, web.NavLink{Href: t.href, Label: i18n.T(r.lang, t.key), Current: t.href == here})
	}
	return v, nil
}

// idParam reads a numeric path parameter; CodeNotFound when it is not one.
func idParam(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, server.FieldErrors{"": {Code: server.CodeNotFound}}
	}
	return id, nil
}

// formInt reads an optional whole number of a form; a FieldErrors when it is not one.
func formInt(c echo.Context, field string) (int64, error) {
	v := strings.TrimSpace(c.FormValue(field))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, server.FieldErrors{field: {Code: server.CodeInvalidValue}}
	}
	return n, nil
}

func checked(c echo.Context, field string) bool { return c.FormValue(field) == "1" }

// entityOptions are the entities as a select's choices, by name.
func (p *Portal) entityOptions(c echo.Context) ([]web.Option, error) {
	es, err := p.wf.Entities(c.Request().Context())
	return optionsOfEntities(es), err
}

func optionsOfEntities(es []store.Entity) []web.Option {
	var out []web.Option
	for _, e := range es {
		out = append(out, web.Option{Value: strconv.FormatInt(e.ID, 10), Label: e.Name + " (" + server.EntityKey(e) + ")"})
	}
	return out
}

// formEntity reads the entity a form names by id; a FieldErrors on field when it names none.
func (p *Portal) formEntity(c echo.Context, field string) (int64, error) {
	id, err := strconv.ParseInt(c.FormValue(field), 10, 64)
	if err != nil || id <= 0 {
		return 0, server.FieldErrors{field: {Code: server.CodeRequired}}
	}
	return id, nil
}

// Entities.

func (p *Portal) entitiesPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.entities", "/portal/admin/entities", errs)
	if err != nil {
		return err
	}
	es, err := p.wf.Entities(c.Request().Context())
	if err != nil {
		return err
	}
	v := &web.EntitiesPage{Console: con}
	for _, e := range es {
		v.Rows = append(v.Rows, web.EntityRow{Href: "/portal/admin/entities/" + strconv.FormatInt(e.ID, 10), Name: e.Name,
			TaxID: server.EntityKey(e), PublicKey: e.PublicKey, Test: e.TestEntity, PaysReceived: e.PaysReceived,
			Sealed: e.ServiceSigning, Transactions: e.Transactions})
	}
	return p.render(c, status, "admin_entities", v)
}

func (p *Portal) createEntity(c echo.Context) (string, error) {
	n, err := formInt(c, "transactions")
	if err != nil {
		return "", err
	}
	country, nif := taxID(c.FormValue("nif"))
	e, err := p.wf.CreateEntity(c.Request().Context(), store.NewEntity{Name: c.FormValue("name"), Country: country, NIF: nif,
		PaysReceived: checked(c, "pays_received"), Transactions: n, TestEntity: checked(c, "test")})
	return "/portal/admin/entities/" + strconv.FormatInt(e.ID, 10), err
}

// taxID reads "PT508025338", or "508025338" for Portugal.
func taxID(v string) (country, nif string) {
	country, nif = taxid.Split(strings.ReplaceAll(v, " ", ""))
	if country == "" {
		country = "PT"
	}
	return country, nif
}

func (p *Portal) entityPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	id, err := idParam(c, "id")
	if err != nil {
		return p.fail(c, http.StatusNotFound, "error.not_found")
	}
	e, rules, err := p.wf.Entity(c.Request().Context(), id)
	if err != nil {
		return p.workflowError(c, err)
	}
	con, err := p.console(c, "admin.entity", "/portal/admin/entities", errs)
	if err != nil {
		return err
	}
	lang := current(c).lang
	con.Title = e.Name
	v := &web.EntityPage{Console: con, ID: strconv.FormatInt(e.ID, 10), Name: e.Name, TaxID: server.EntityKey(e), Key: e.PublicKey,
		Test: e.TestEntity, PaysReceived: e.PaysReceived, ProcessStates: e.ProcessStatesEnabled, SignsItself: e.SignsItself,
		Transactions: e.Transactions, Created: e.CreatedAt, Updated: e.UpdatedAt}
	for _, r := range server.RecipientRuleNames {
		v.Rules = append(v.Rules, web.RuleChoice{Name: r, Label: i18n.T(lang, "admin.rule."+r), On: slices.Contains(rules, r)})
	}
	return p.render(c, status, "admin_entity", v)
}

func (p *Portal) updateEntity(c echo.Context) (string, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return "", err
	}
	n, err := formInt(c, "transactions")
	if err != nil {
		return "", err
	}
	name := c.FormValue("name")
	test, pays, states, signs := checked(c, "test"), checked(c, "pays_received"), checked(c, "process_states"), checked(c, "signs_itself")
	_, err = p.wf.UpdateEntity(c.Request().Context(), id, store.EntityChanges{Name: &name, TestEntity: &test, PaysReceived: &pays,
		Transactions: &n, ProcessStatesEnabled: &states, SignsItself: &signs})
	return "/portal/admin/entities/" + c.Param("id"), err
}

func (p *Portal) setRule(c echo.Context) (string, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return "", err
	}
	_, err = p.wf.SetRecipientRule(c.Request().Context(), id, c.FormValue("rule"), checked(c, "on"))
	return "/portal/admin/entities/" + c.Param("id"), err
}

// API credentials.

func (p *Portal) credentialsPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	return p.credentialsWith(c, status, errs, nil)
}

// credentialsWith is the credentials page; created, when given, is the credential just made, whose
// secret this answer shows for the only time.
func (p *Portal) credentialsWith(c echo.Context, status int, errs map[string]*web.FieldError, created *web.CreatedCredential) error {
	con, err := p.console(c, "admin.credentials", "/portal/admin/credentials", errs)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	clients, tokens, auths, err := p.wf.Credentials(ctx)
	if err != nil {
		return err
	}
	v := &web.CredentialsPage{Console: con, Created: created}
	if v.EntityOptions, err = p.entityOptions(c); err != nil {
		return err
	}
	for _, s := range server.AllScopes {
		v.Scopes = append(v.Scopes, web.Option{Value: s, Label: s, Selected: true})
	}
	lang := current(c).lang
	row := func(cr store.Credential) web.CredentialRow {
		r := web.CredentialRow{ID: strconv.FormatInt(cr.ID, 10), Name: cr.Name, ClientID: cr.ClientID,
			Scopes: strings.Join(cr.Scopes, ", "), Disabled: cr.Disabled}
		for _, a := range auths {
			if a.CredentialID == cr.ID {
				name := a.Entity.Name + " (" + a.Entity.Country + a.Entity.NIF + ")"
				if cr.Kind == store.KindPlatform && a.Handshake {
					name += " · " + i18n.T(lang, "admin.handshake_done")
				}
				r.Entities = append(r.Entities, name)
			}
		}
		return r
	}
	for _, cr := range clients {
		v.Clients = append(v.Clients, row(cr))
	}
	for _, cr := range tokens {
		v.Tokens = append(v.Tokens, row(cr))
	}
	return p.render(c, status, "admin_credentials", v)
}

// createCredential makes an OAuth client or a platform token and shows its secret in this answer
// only (never cached, as no portal page is): it is not kept anywhere it could be shown again.
func (p *Portal) createCredential(kind string) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		form, err := c.FormParams()
		if err != nil {
			return err
		}
		create := p.wf.CreateClient
		if kind == store.KindPlatform {
			create = p.wf.CreatePlatformToken
		}
		cr, secret, err := create(ctx, c.FormValue("name"), form["scopes"])
		if codes := server.FieldCodes(err); codes != nil {
			return p.credentialsWith(c, http.StatusBadRequest, fieldErrors(prefixed(kind, codes), current(c).lang), nil)
		}
		if err != nil {
			return err
		}
		return p.credentialsWith(c, http.StatusCreated, nil, &web.CreatedCredential{Kind: kind, Name: cr.Name, ClientID: cr.ClientID,
			Secret: secret})
	}
}

// prefixed names a form's fields after the form (client_name, platform_scopes), for pages with several.
func prefixed(form string, codes map[string]*server.Code) map[string]*server.Code {
	out := make(map[string]*server.Code, len(codes))
	for f, c := range codes {
		out[form+"_"+f] = c
	}
	return out
}

func (p *Portal) disableClient(c echo.Context) (string, error) {
	_, err := p.wf.DisableClient(c.Request().Context(), c.Param("id"))
	return "/portal/admin/credentials", err
}

func (p *Portal) authorizeClient(c echo.Context) (string, error) {
	entity, err := p.formEntity(c, "entity")
	if err != nil {
		return "", err
	}
	_, err = p.wf.AuthorizeClient(c.Request().Context(), c.Param("id"), entity)
	return "/portal/admin/credentials", err
}

func (p *Portal) revokeToken(c echo.Context) (string, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return "", err
	}
	_, err = p.wf.RevokePlatformToken(c.Request().Context(), id)
	return "/portal/admin/credentials", err
}

func (p *Portal) authorizeToken(c echo.Context) (string, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return "", err
	}
	entity, err := p.formEntity(c, "entity")
	if err != nil {
		return "", err
	}
	_, err = p.wf.AuthorizePlatformToken(c.Request().Context(), id, entity)
	return "/portal/admin/credentials", err
}

// Connections.

// reviewStates are the states the console's review form offers, in its order.
var reviewStates = []string{store.ConnApproved, store.ConnDeclined, store.ConnPending, store.ConnAnalyzing}

func (p *Portal) adminConnectionsPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.connections", "/portal/admin/connections", errs)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	state := q.Get("state")
	if !slices.Contains(reviewStates, state) {
		state = ""
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(1, min(page, 1_000_000))
	ctx := c.Request().Context()
	conns, total, err := p.wf.Connections(ctx, state, (page-1)*connectionRows, connectionRows)
	if err != nil {
		return err
	}
	lang := current(c).lang
	v := &web.ConnectionsPage{Console: con, Total: total, State: state, Pager: pager(q, page, total, connectionRows, len(conns))}
	partners, err := p.wf.AS2Partners(ctx)
	if err != nil {
		return err
	}
	for _, pt := range partners {
		v.Partners = append(v.Partners, pt.Name)
	}
	upstreams, err := p.wf.Upstreams(ctx)
	if err != nil {
		return err
	}
	for _, u := range upstreams {
		v.Upstreams = append(v.Upstreams, u.Name)
	}
	for _, s := range reviewStates {
		v.States = append(v.States, web.Option{Value: s, Label: i18n.T(lang, "api.connection.state."+s)})
	}
	for _, cn := range conns {
		v.Rows = append(v.Rows, connectionRow(cn, 0, lang))
		// A name no longer configured stays a choice, so that saving the form does not drop it unasked.
		if cn.Partner != "" && !slices.Contains(v.Partners, cn.Partner) {
			v.Partners = append(v.Partners, cn.Partner)
		}
		if cn.Upstream != "" && !slices.Contains(v.Upstreams, cn.Upstream) {
			v.Upstreams = append(v.Upstreams, cn.Upstream)
		}
	}
	return p.render(c, status, "admin_connections", v)
}

// connectionRow is a connection as a table shows it; seenFrom, when not 0, is the entity whose page
// it is on, which tells its direction.
func connectionRow(cn store.Connection, seenFrom int64, lang string) web.ConnectionRow {
	r := web.ConnectionRow{ID: strconv.FormatInt(cn.ID, 10),
		From: cn.From.Name, FromTaxID: cn.From.Country + cn.From.NIF, To: cn.To.Name, ToTaxID: cn.To.Country + cn.To.NIF,
		State: cn.State, StateLabel: i18n.T(lang, "api.connection.state."+cn.State), Observation: cn.Observation,
		Reason: cn.Reason, ReasonAt: cn.ReasonAt, AdminObservation: cn.AdminObservation, Partner: cn.Partner, Upstream: cn.Upstream,
		Created: cn.CreatedAt, Updated: cn.UpdatedAt}
	switch seenFrom {
	case 0:
	case cn.From.ID:
		r.Direction = i18n.T(lang, "connections.requested")
	default:
		r.Direction = i18n.T(lang, "connections.received")
	}
	return r
}

func (p *Portal) reviewConnection(c echo.Context) (string, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return "", err
	}
	form, err := c.FormParams()
	if err != nil {
		return "", err
	}
	_, err = p.wf.ReviewConnection(c.Request().Context(), id, c.FormValue("state"), c.FormValue("reason"), c.FormValue("admin_observation"),
		formField(form, "partner"), formField(form, "upstream"))
	return "/portal/admin/connections", err
}

// formField is a form's field when the form has it, nil when not.
func formField(form url.Values, name string) *string {
	if !form.Has(name) {
		return nil
	}
	v := form.Get(name)
	return &v
}

// Seals.

// sealWarning is how long before its expiry a seal is flagged.
const sealWarning = 30 * 24 * time.Hour

func (p *Portal) sealsPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.seals", "/portal/admin/seals", errs)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	seals, err := p.wf.Seals(ctx)
	if err != nil {
		return err
	}
	es, err := p.wf.Entities(ctx)
	if err != nil {
		return err
	}
	v := &web.SealsPage{Console: con, EntityOptions: optionsOfEntities(es)}
	now := time.Now()
	for _, s := range seals {
		row := web.SealRow{EntityID: strconv.FormatInt(s.EntityID, 10), Subject: s.Subject, Issuer: s.Issuer, Serial: s.Serial,
			NotBefore: s.NotBefore, NotAfter: s.NotAfter}
		for _, e := range es {
			if e.ID == s.EntityID {
				row.Entity, row.TaxID = e.Name, server.EntityKey(e)
			}
		}
		if end, err := time.Parse(time.RFC3339, s.NotAfter); err == nil {
			row.Expired, row.ExpiresSoon = end.Before(now), end.Before(now.Add(sealWarning))
		}
		v.Rows = append(v.Rows, row)
	}
	return p.render(c, status, "admin_seals", v)
}

func (p *Portal) importSeal(c echo.Context) (string, error) {
	entity, err := p.formEntity(c, "entity")
	if err != nil {
		return "", err
	}
	data, err := formFile(c, "file", server.MaxSealFile)
	if err != nil {
		return "", err
	}
	if data == nil {
		return "", server.FieldErrors{"file": {Code: server.CodeRequired}}
	}
	_, err = p.wf.ImportSeal(c.Request().Context(), entity, data, c.FormValue("password"))
	return "/portal/admin/seals", err
}

func (p *Portal) deleteSeal(c echo.Context) (string, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return "", err
	}
	return "/portal/admin/seals", p.wf.DeleteSeal(c.Request().Context(), id)
}

// Portal users.

func (p *Portal) usersPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.users", "/portal/admin/users", errs)
	if err != nil {
		return err
	}
	users, err := p.wf.Users(c.Request().Context())
	if err != nil {
		return err
	}
	lang := current(c).lang
	v := &web.UsersPage{Console: con}
	if v.EntityOptions, err = p.entityOptions(c); err != nil {
		return err
	}
	for _, r := range server.UserRoles {
		v.Roles = append(v.Roles, web.Option{Value: r, Label: i18n.T(lang, "role."+r)})
	}
	for _, u := range users {
		row := web.ConsoleUserRow{Username: u.Username, Support: u.Support, Disabled: u.Disabled, Created: u.CreatedAt}
		for _, m := range u.Memberships {
			row.Roles = append(row.Roles, i18n.T(lang, "role."+m.Role)+" · "+m.EntityName+" ("+m.Country+m.NIF+")")
		}
		v.Rows = append(v.Rows, row)
	}
	return p.render(c, status, "admin_users", v)
}

func (p *Portal) createUser(c echo.Context) (string, error) {
	n := server.NewUser{Username: c.FormValue("username"), Password: c.FormValue("password"), Role: c.FormValue("role")}
	if n.Role != server.RoleSupport {
		n.EntityID, _ = strconv.ParseInt(c.FormValue("entity"), 10, 64)
	}
	_, err := p.wf.CreateUser(c.Request().Context(), n)
	return "/portal/admin/users", err
}

func (p *Portal) setUserDisabled(disabled bool) func(c echo.Context) (string, error) {
	return func(c echo.Context) (string, error) {
		_, err := p.wf.SetUserDisabled(c.Request().Context(), c.Param("username"), disabled)
		return "/portal/admin/users", err
	}
}

func (p *Portal) resetPassword(c echo.Context) (string, error) {
	return "/portal/admin/users", p.wf.ResetPassword(c.Request().Context(), c.Param("username"), c.FormValue("password"))
}

func (p *Portal) grantRole(c echo.Context) (string, error) {
	entity, err := p.formEntity(c, "entity")
	if err != nil {
		return "", err
	}
	_, err = p.wf.GrantRole(c.Request().Context(), c.Param("username"), entity, c.FormValue("role"))
	return "/portal/admin/users", err
}

// E-mails.

var emailStates = []string{store.EmailQueued, store.EmailSent, store.EmailFailed, store.EmailReturned}

func (p *Portal) emailsPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.emails", "/portal/admin/emails", errs)
	if err != nil {
		return err
	}
	ctx, lang := c.Request().Context(), current(c).lang
	f := store.EmailFilter{State: c.QueryParam("state"), Limit: 200}
	if !slices.Contains(emailStates, f.State) {
		f.State = ""
	}
	f.EntityID, _ = strconv.ParseInt(c.QueryParam("entity"), 10, 64)
	emails, err := p.wf.Emails(ctx, f)
	if err != nil {
		return err
	}
	v := &web.EmailsPage{Console: con}
	if v.EntityOptions, err = p.entityOptions(c); err != nil {
		return err
	}
	for i := range v.EntityOptions {
		v.EntityOptions[i].Selected = v.EntityOptions[i].Value == strconv.FormatInt(f.EntityID, 10)
	}
	for _, s := range emailStates {
		v.States = append(v.States, web.Option{Value: s, Label: i18n.T(lang, "admin.email."+s), Selected: s == f.State})
	}
	for _, e := range emails {
		v.Rows = append(v.Rows, web.EmailRow{Address: e.Address, State: e.State,
			StateLabel: i18n.T(lang, "admin.email."+e.State), Attempts: strconv.Itoa(e.Attempts), Sent: e.SentAt, Opened: e.OpenedAt,
			NextTry: e.NextAttemptAt, Error: e.LastError, Created: e.CreatedAt})
	}
	dir, files, err := p.wf.OutboxMessages(100)
	switch {
	case server.ErrorCode(err) == server.CodeNoOutbox:
	case err != nil:
		return err
	default:
		v.OutboxDir = dir
		for _, m := range files {
			v.Outbox = append(v.Outbox, web.OutboxRow{Href: "/portal/admin/outbox/" + url.PathEscape(m.File), Date: m.Date, To: m.To,
				Subject: m.Subject, Size: m.Size})
		}
	}
	return p.render(c, status, "admin_emails", v)
}

// outboxMessage shows one .eml file of the outbox folder as text (escaped like any text of a page).
func (p *Portal) outboxMessage(c echo.Context) error {
	m, raw, err := p.wf.OutboxFile(c.Param("file"))
	if err != nil {
		return p.workflowError(c, err)
	}
	con, err := p.console(c, "admin.outbox_message", "/portal/admin/emails", nil)
	if err != nil {
		return err
	}
	con.Title = m.Subject
	return p.render(c, http.StatusOK, "admin_email", &web.OutboxMessagePage{Console: con, File: m.File, To: m.To, Subject: m.Subject,
		Date: m.Date, Text: string(raw)})
}

// Webhook deliveries.

func (p *Portal) webhookAttemptsPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.webhooks", "/portal/admin/webhooks", errs)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	attempts, err := p.wf.WebhookAttempts(ctx, 0, 200)
	if err != nil {
		return err
	}
	es, err := p.wf.Entities(ctx)
	if err != nil {
		return err
	}
	names := map[int64]string{}
	for _, e := range es {
		names[e.ID] = e.Name + " (" + server.EntityKey(e) + ")"
	}
	v := &web.WebhookAttemptsPage{Console: con}
	for _, a := range attempts {
		v.Rows = append(v.Rows, web.WebhookAttemptRow{When: a.CreatedAt, Entity: names[a.EntityID], URL: a.URL,
			Attempt: strconv.Itoa(a.Attempt), Status: strconv.Itoa(a.StatusCode), Latency: strconv.FormatInt(a.LatencyMS, 10) + " ms",
			Error: a.Error, OK: a.StatusCode >= 200 && a.StatusCode < 300})
	}
	return p.render(c, status, "admin_webhooks", v)
}

// The audit log.

const auditRows = 50

func (p *Portal) auditPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.audit", "/portal/admin/audit", errs)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	get := func(k string) string { return limit(strings.TrimSpace(q.Get(k)), 200) }
	filter := web.AuditFilter{Actor: get("actor"), Action: get("action"), Subject: get("subject"), From: get("from"), To: get("to")}
	for _, d := range []*string{&filter.From, &filter.To} {
		if _, err := time.Parse(time.DateOnly, *d); err != nil {
			*d = ""
		}
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(1, min(page, 1_000_000))
	entries, total, err := p.wf.AuditLog(c.Request().Context(), store.AuditFilter{Actor: filter.Actor, Action: filter.Action,
		Subject: filter.Subject, From: filter.From, To: filter.To, Offset: (page - 1) * auditRows, Limit: auditRows})
	if err != nil {
		return err
	}
	v := &web.AuditPage{Console: con, Filter: filter, Total: total}
	for _, e := range entries {
		v.Rows = append(v.Rows, web.AuditRow{When: e.CreatedAt, Actor: e.Actor, ActorKind: e.ActorKind, Action: e.Action,
			Subject: e.Subject, Detail: e.Detail})
	}
	v.Pager = pager(q, page, total, auditRows, len(entries))
	return p.render(c, status, "admin_audit", v)
}

// pager links a list's page to its neighbours, keeping the URL's filter.
func pager(q url.Values, page, total, rows, shown int) web.Pager {
	pages := max(1, (total+rows-1)/rows)
	pg := web.Pager{Page: page, Pages: pages, First: (page-1)*rows + 1, Last: (page-1)*rows + shown}
	if page > 1 {
		pg.Prev = withParam(q, "page", strconv.Itoa(page-1))
	}
	if page < pages {
		pg.Next = withParam(q, "page", strconv.Itoa(page+1))
	}
	return pg
}
