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
	"einvoice/ubl/pdf"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// The pages of a signed-in user: sign-in and out, the overview, the document lists and the account.

func (p *Portal) loginForm(c echo.Context) error {
	if current(c).user.ID != 0 {
		return c.Redirect(http.StatusSeeOther, localPath(c.QueryParam("next")))
	}
	lang := current(c).lang
	return p.render(c, http.StatusOK, "login", &web.LoginPage{Base: web.Base{Title: i18n.T(lang, "login.title")},
		Next: localPath(c.QueryParam("next"))})
}

func (p *Portal) login(c echo.Context) error {
	lang := current(c).lang
	username, next := c.FormValue("username"), localPath(c.FormValue("next"))
	s, err := p.wf.Login(c.Request().Context(), server.Login{Username: username, Password: c.FormValue("password"),
		Address: server.ClientAddress(c), UserAgent: c.Request().UserAgent()})
	if err != nil {
		page := &web.LoginPage{Base: web.Base{Title: i18n.T(lang, "login.title")}, Username: username, Next: next}
		if wait, ok := server.RetryAfter(err); ok {
			c.Response().Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
			page.Error, page.ErrorCode = i18n.T(lang, "login.throttled", minutes(wait)), server.CodeAuthThrottled.ID
			return p.render(c, http.StatusTooManyRequests, "login", page)
		}
		if server.FieldCodes(err) == nil {
			return err
		}
		page.Error, page.ErrorCode = i18n.T(lang, "login.failed"), server.CodeLoginFailed.ID
		return p.render(c, http.StatusUnauthorized, "login", page)
	}
	p.setCookie(c, sessionCookie, s.Token, 0)
	return c.Redirect(http.StatusSeeOther, next)
}

func (p *Portal) logout(c echo.Context) error {
	if r := current(c); r.user.ID != 0 {
		if err := p.wf.EndSession(c.Request().Context(), r.user.ID, r.session.ID); err != nil && server.FieldCodes(err) == nil {
			return err
		}
	}
	p.clearCookie(c, sessionCookie)
	return c.Redirect(http.StatusSeeOther, "/portal/login")
}

// base is the frame of a signed-in page at the chosen entity (the cookie's, else the user's first);
// CodeNotFound when the user has no entity.
func (p *Portal) base(c echo.Context, title, here string) (server.Access, web.Base, error) {
	r := current(c)
	key := ""
	if ck, err := c.Cookie(entityCookie); err == nil {
		key = ck.Value
	}
	a, entities, err := p.wf.AccessTo(c.Request().Context(), r.user, key)
	if err != nil {
		return server.Access{}, web.Base{}, err
	}
	b := web.Base{Title: title, User: r.user.Username, Support: r.user.Support, Flash: p.takeFlash(c, r.lang)}
	choice := func(er server.EntityRole) web.EntityChoice {
		return web.EntityChoice{Key: server.EntityKey(er.Entity), Name: er.Entity.Name, TaxID: server.EntityKey(er.Entity),
			Role: i18n.T(r.lang, "role."+er.Role), Current: er.Entity.ID == a.Entity.ID}
	}
	cur := choice(server.EntityRole{Entity: a.Entity, Role: a.Role})
	b.Entity = &cur
	if len(entities) > 1 {
		for _, er := range entities {
			b.Entities = append(b.Entities, choice(er))
		}
	}
	for _, n := range []struct{ href, key string }{
		{"/portal/", "nav.dashboard"}, {"/portal/issued", "nav.issued"}, {"/portal/received", "nav.received"},
		{"/portal/tosend", "nav.tosend"}, {"/portal/validate", "nav.validate"}, {"/portal/connections", "nav.connections"},
	} {
		b.Nav = append(b.Nav, web.NavLink{Href: n.href, Label: i18n.T(r.lang, n.key), Current: n.href == here})
	}
	if a.CanAct() {
		b.Issue = "/portal/documents/new"
		b.Nav = append(b.Nav, web.NavLink{Href: b.Issue, Label: i18n.T(r.lang, "nav.new"), Current: b.Issue == here})
	}
	if a.CanAdmin() {
		b.Nav = append(b.Nav, web.NavLink{Href: "/portal/settings", Label: i18n.T(r.lang, "nav.settings"), Current: here == "/portal/settings"})
	}
	if r.user.Support {
		b.Nav = append(b.Nav, web.NavLink{Href: "/portal/admin/", Label: i18n.T(r.lang, "nav.admin"), Current: here == "/portal/admin/"})
	}
	return a, b, nil
}

// noEntity answers a user who belongs to no entity.
func (p *Portal) noEntity(c echo.Context, err error) error {
	if codes := server.FieldCodes(err); codes != nil && codes[""] == server.CodeNotFound {
		return p.fail(c, http.StatusForbidden, "error.no_entity")
	}
	return err
}

func (p *Portal) switchEntity(c echo.Context) error {
	r := current(c)
	a, _, err := p.wf.AccessTo(c.Request().Context(), r.user, c.FormValue("entity"))
	if err != nil {
		return p.noEntity(c, err)
	}
	p.setCookie(c, entityCookie, server.EntityKey(a.Entity), 365*24*time.Hour)
	return c.Redirect(http.StatusSeeOther, localPath(c.FormValue("next")))
}

var documentStates = []string{store.StateToSend, store.StateSent, store.StateAccepted, store.StateRejected}

func (p *Portal) dashboard(c echo.Context) error {
	lang := current(c).lang
	a, b, err := p.base(c, "", "/portal/")
	if err != nil {
		return p.noEntity(c, err)
	}
	ctx := c.Request().Context()
	counts, err := p.wf.CountDocuments(ctx, a)
	if err != nil {
		return err
	}
	b.Title = i18n.T(lang, "dashboard.title", a.Entity.Name)
	v := &web.DashboardPage{Base: b}
	for _, st := range documentStates {
		label := i18n.T(lang, "state."+st)
		v.Issued = append(v.Issued, web.StateCount{Label: label, Count: counts.Issued[st], Href: "/portal/issued?state=" + st})
		if st != store.StateToSend {
			v.Received = append(v.Received, web.StateCount{Label: label, Count: counts.Received[st], Href: "/portal/received?state=" + st})
		}
	}
	for _, at := range []struct {
		key, href string
		n         int
	}{
		{"attention.rejected", "/portal/issued?state=rejected", counts.Issued[store.StateRejected]},
		{"attention.tosend", "/portal/tosend", counts.Issued[store.StateToSend]},
	} {
		if at.n > 0 {
			v.Attention = append(v.Attention, web.Attention{Key: at.key, Label: i18n.T(lang, at.key), Count: at.n, Href: at.href})
		}
	}
	attention, err := p.wf.Attention(ctx, a)
	if err != nil {
		return err
	}
	if n := len(attention.FailedEmails); n > 0 {
		// The newest failure's document: its page lists its e-mails and sends them again.
		href := "/portal/documents/" + attention.FailedEmails[0].DocumentRef
		v.Attention = append(v.Attention, web.Attention{Key: "attention.failed_emails", Label: i18n.T(lang, "attention.failed_emails"), Count: n, Href: href})
	}
	if n := len(attention.FailingWebhooks); n > 0 {
		v.Attention = append(v.Attention, web.Attention{Key: "attention.failing_webhooks", Label: i18n.T(lang, "attention.failing_webhooks"), Count: n, Href: "/portal/settings#webhooks"})
	}
	latest, _, err := p.wf.ListDocuments(ctx, a, store.DocumentFilter{Side: store.SideIssued, Sort: "-date", Limit: 10})
	if err != nil {
		return err
	}
	for _, d := range latest {
		v.Latest = append(v.Latest, documentRow(d, store.SideIssued, lang))
	}
	return p.render(c, http.StatusOK, "dashboard", v)
}

// documentRow is a document as a table shows it.
func documentRow(d store.Document, side, lang string) web.DocumentRow {
	party := d.Customer
	if side == store.SideReceived {
		party = d.Supplier
	}
	return web.DocumentRow{
		Href: "/portal/documents/" + server.DocumentRef(d), Number: d.Number, Type: i18n.T(lang, "kind."+d.Kind),
		Date: d.EmissionDate, Counterparty: party.Name, TaxID: party.Country + party.NIF,
		Amount: amount(d.PayableAmount, d.Currency, lang), State: d.State, StateLabel: i18n.T(lang, "state."+d.State),
	}
}

// amount is a payable amount with its currency, written as the language writes numbers.
func amount(value, currency, lang string) string {
	whole, frac, _ := strings.Cut(value, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	return pdf.Number(lang, whole+"."+frac) + "\u00a0" + currency
}

// list is a table of one side of the entity's documents, filtered by the URL.
func (p *Portal) list(side string) echo.HandlerFunc {
	return func(c echo.Context) error {
		lang := current(c).lang
		a, b, err := p.base(c, i18n.T(lang, "list."+side+".title"), "/portal/"+side)
		if err != nil {
			return p.noEntity(c, err)
		}
		q := c.QueryParams()
		f, filter := listFilter(q, side)
		docs, total, err := p.wf.ListDocuments(c.Request().Context(), a, f)
		if err != nil {
			return err
		}
		v := &web.ListPage{Base: b, Side: side, Filter: filter, Total: total}
		for _, k := range []string{"invoice", "credit_note", "order"} {
			v.Kinds = append(v.Kinds, web.Option{Value: k, Label: i18n.T(lang, "kind."+k), Selected: k == filter.Kind})
		}
		if side != store.SideToSend {
			for _, st := range documentStates {
				if side == store.SideReceived && st == store.StateToSend {
					continue
				}
				v.States = append(v.States, web.Option{Value: st, Label: i18n.T(lang, "state."+st), Selected: st == filter.State})
			}
		}
		party := "col.customer"
		if side == store.SideReceived {
			party = "col.supplier"
		}
		for _, col := range []struct{ key, sort string }{
			{"col.number", "number"}, {"col.type", ""}, {"col.date", "date"}, {party, "name"}, {"col.amount", "amount"}, {"col.state", "state"},
		} {
			v.Columns = append(v.Columns, sortColumn(q, i18n.T(lang, col.key), col.sort, f.Sort))
		}
		for _, d := range docs {
			v.Rows = append(v.Rows, documentRow(d, side, lang))
		}
		v.Pager = pager(q, f.Offset/f.Limit+1, total, f.Limit, len(docs))
		export := url.Values{}
		for k, vals := range q {
			if k != "page" && k != "rows" {
				export[k] = vals
			}
		}
		v.CSV, v.ZIP = "/portal/"+side+".csv?"+export.Encode(), "/portal/"+side+".zip?"+export.Encode()
		return p.render(c, http.StatusOK, "documents", v)
	}
}

// maxRows is the most rows a page shows.
const maxRows = 200

// listFilter reads a list's filter from the URL; values that make no sense are dropped.
func listFilter(q url.Values, side string) (store.DocumentFilter, web.ListFilter) {
	get := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	v := web.ListFilter{Number: get("number"), Kind: get("type"), NIF: get("nif"), Q: get("q"), State: get("state"),
		From: get("from"), To: get("to"), Sort: get("sort"), Rows: 50}
	if v.Kind != "invoice" && v.Kind != "credit_note" && v.Kind != "order" {
		v.Kind = ""
	}
	if v.State != "" && (side == store.SideToSend || !slices.Contains(documentStates, v.State)) {
		v.State = ""
	}
	for _, d := range []*string{&v.From, &v.To} {
		if _, err := time.Parse(time.DateOnly, *d); err != nil {
			*d = ""
		}
	}
	if key := strings.TrimPrefix(v.Sort, "-"); store.DocumentSorts[key] == "" {
		v.Sort = ""
	}
	nif := strings.TrimPrefix(strings.ToUpper(v.NIF), "PT")
	if n, err := strconv.Atoi(get("rows")); err == nil && n > 0 {
		v.Rows = min(n, maxRows)
	}
	page, _ := strconv.Atoi(get("page"))
	page = max(1, min(page, 1_000_000))
	return store.DocumentFilter{Side: side, Number: limit(v.Number, 100), Kind: v.Kind, NIF: limit(nif, 30), Name: limit(v.Q, 100),
		State: v.State, From: v.From, To: v.To, Sort: v.Sort, Offset: (page - 1) * v.Rows, Limit: v.Rows}, v
}

func limit(s string, n int) string {
	if len(s) > n {
		return ""
	}
	return s
}

// sortColumn is a heading that sorts by key: ascending first, descending when it already sorts so.
func sortColumn(q url.Values, label, key, current string) web.Column {
	col := web.Column{Label: label}
	if key == "" {
		return col
	}
	next := key
	switch current {
	case key:
		col.Sorted, next = "ascending", "-"+key
	case "-" + key:
		col.Sorted = "descending"
	case "":
		if key == "date" {
			col.Sorted = "descending"
		}
	}
	col.Href = withParam(withoutPage(q), "sort", next)
	return col
}

func withoutPage(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		if k != "page" {
			out[k] = v
		}
	}
	return out
}

// withParam is the query q with one parameter set, as a relative link.
func withParam(q url.Values, key, value string) string {
	out := url.Values{}
	for k, v := range q {
		out[k] = v
	}
	out.Set(key, value)
	return "?" + out.Encode()
}

func (p *Portal) account(c echo.Context) error {
	return p.accountPage(c, http.StatusOK, nil)
}

func (p *Portal) accountPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	r := current(c)
	_, b, err := p.base(c, i18n.T(r.lang, "account.title"), "/portal/account")
	if err != nil && !r.user.Support {
		b = web.Base{Title: i18n.T(r.lang, "account.title"), User: r.user.Username}
	}
	sessions, err := p.wf.Sessions(c.Request().Context(), r.user.ID)
	if err != nil {
		return err
	}
	v := &web.AccountPage{Base: b, Username: r.user.Username, Errors: errs}
	if !r.user.Support {
		for _, m := range r.user.Memberships {
			v.Roles = append(v.Roles, web.EntityChoice{Name: m.EntityName, TaxID: m.Country + m.NIF, Role: i18n.T(r.lang, "role."+m.Role)})
		}
	}
	for _, s := range sessions {
		v.Sessions = append(v.Sessions, web.SessionRow{ID: strconv.FormatInt(s.ID, 10), Created: s.CreatedAt, LastSeen: s.LastSeenAt,
			UserAgent: s.UserAgent, Address: s.Address, Current: s.ID == r.session.ID})
	}
	return p.render(c, status, "account", v)
}

func (p *Portal) changePassword(c echo.Context) error {
	r := current(c)
	err := p.wf.ChangePassword(c.Request().Context(), r.user.ID, r.session.ID, c.FormValue("current"), c.FormValue("password"))
	codes := server.FieldCodes(err)
	if err != nil && codes == nil {
		return err
	}
	if err != nil {
		return p.accountPage(c, http.StatusBadRequest, fieldErrors(codes, r.lang))
	}
	p.flash(c, false, "account.password_changed")
	return c.Redirect(http.StatusSeeOther, "/portal/account")
}

// fieldErrors are a refusal's codes by field, with their texts, as a form shows them.
func fieldErrors(codes map[string]*server.Code, lang string) map[string]*web.FieldError {
	out := make(map[string]*web.FieldError, len(codes))
	for field, code := range codes {
		out[field] = &web.FieldError{Code: code.ID, Text: code.Msg(lang)}
	}
	return out
}

func (p *Portal) endSession(c echo.Context) error {
	r := current(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return p.fail(c, http.StatusNotFound, "error.not_found")
	}
	if err := p.wf.EndSession(c.Request().Context(), r.user.ID, id); err != nil {
		if server.FieldCodes(err) != nil {
			return p.fail(c, http.StatusNotFound, "error.not_found")
		}
		return err
	}
	p.flash(c, false, "account.session_ended")
	return c.Redirect(http.StatusSeeOther, "/portal/account")
}
