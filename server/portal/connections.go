package portal

import (
	"net/http"
	"strconv"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// The chosen entity's connections, in both directions, and the form that requests a new one; the
// support team reviews requests in its console.

const connectionRows = 50

func (p *Portal) connections(c echo.Context) error {
	return p.connectionsPage(c, http.StatusOK, nil, "", "")
}

func (p *Portal) connectionsPage(c echo.Context, status int, errs map[string]*web.FieldError, nif, note string) error {
	lang := current(c).lang
	a, b, err := p.base(c, i18n.T(lang, "connections.title"), "/portal/connections")
	if err != nil {
		return p.noEntity(c, err)
	}
	q := c.QueryParams()
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(1, min(page, 1_000_000))
	conns, total, err := p.wf.EntityConnections(c.Request().Context(), a.Entity.ID, (page-1)*connectionRows, connectionRows)
	if err != nil {
		return err
	}
	v := &web.ConnectionsPage{Console: web.Console{Base: b, Errors: errs}, Total: total, CanAsk: a.CanAct(), NIF: nif, Note: note}
	for _, cn := range conns {
		v.Rows = append(v.Rows, connectionRow(cn, a.Entity.ID, lang))
	}
	v.Pager = pager(q, page, total, connectionRows, len(conns))
	return p.render(c, status, "connections", v)
}

// requestConnection asks for a connection from the chosen entity to another, by its tax ID.
func (p *Portal) requestConnection(c echo.Context) error {
	a, _, err := p.base(c, "", "")
	if err != nil {
		return p.noEntity(c, err)
	}
	if !a.CanAct() {
		return p.fail(c, http.StatusForbidden, "error.forbidden")
	}
	nif, note := limit(c.FormValue("nif"), 30), c.FormValue("observation")
	if _, err := p.wf.RequestConnection(c.Request().Context(), a.Entity.ID, nif, note); err != nil {
		codes := server.FieldCodes(err)
		if codes == nil {
			return err
		}
		return p.connectionsPage(c, refusalStatus(codes), fieldErrors(codes, current(c).lang), nif, note)
	}
	p.flash(c, false, "connections.requested_ok")
	return c.Redirect(http.StatusSeeOther, "/portal/connections")
}
