// Package portal is the web portal's front end: the routes under /portal/, sessions in a cookie, the
// security headers and cross-origin checks, and the handlers that turn a request into one workflow
// call and a page of package web. It never reads the store itself.
package portal

import (
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// Cookies the portal sets. The session cookie holds a random token whose hash the database keeps.
const (
	sessionCookie = "einvoice_session"
	entityCookie  = "einvoice_entity"
	langCookie    = "einvoice_lang"
	flashCookie   = "einvoice_flash"
)

// contentSecurityPolicy allows nothing but the portal's own files: no inline script or style, no
// other origin, no framing by other sites.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'"

// Portal serves the portal's pages over the workflow layer.
type Portal struct {
	wf     *server.Workflow
	pages  *web.Renderer
	log    *slog.Logger
	secure bool
	cop    *http.CrossOriginProtection
}

// Mount adds the portal's routes to the service.
func Mount(s *server.Server, log *slog.Logger) error {
	pages, err := web.New(i18n.T)
	if err != nil {
		return err
	}
	p := &Portal{wf: s.Workflow, pages: pages, log: log, secure: s.SecureCookies(), cop: http.NewCrossOriginProtection()}
	p.cop.SetDenyHandler(http.HandlerFunc(p.crossOrigin))
	p.routes(s.Echo())
	return nil
}

func (p *Portal) routes(e *echo.Echo) {
	e.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/portal/") })
	e.GET("/portal", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/portal/") })
	static := http.StripPrefix("/portal/static/", http.FileServer(http.FS(web.Static())))
	e.GET("/portal/static/*", echo.WrapHandler(cacheFor(static, time.Hour)))

	g := e.Group("/portal", p.headers, echo.WrapMiddleware(p.cop.Handler), p.loadSession)
	g.GET("/login", p.loginForm)
	g.POST("/login", p.login)
	g.POST("/logout", p.logout)
	g.GET("/lang/:lang", p.switchLang)

	in := g.Group("", p.signedIn)
	in.GET("/", p.dashboard)
	in.POST("/entity", p.switchEntity)
	in.GET("/issued", p.list(store.SideIssued))
	in.GET("/received", p.list(store.SideReceived))
	in.GET("/tosend", p.list(store.SideToSend))
	in.GET("/issued.csv", p.exportCSV(store.SideIssued))
	in.GET("/received.csv", p.exportCSV(store.SideReceived))
	in.GET("/tosend.csv", p.exportCSV(store.SideToSend))
	in.GET("/issued.zip", p.exportZIP(store.SideIssued))
	in.GET("/received.zip", p.exportZIP(store.SideReceived))
	in.GET("/tosend.zip", p.exportZIP(store.SideToSend))
	in.GET("/documents/new", p.uploadForm)
	in.POST("/documents/new", p.upload)
	in.GET("/documents/:id", p.document)
	in.GET("/documents/:id/xml", p.documentFile("xml"))
	in.GET("/documents/:id/pdf", p.documentFile("pdf"))
	in.GET("/documents/:id/files/:file", p.documentFile(""))
	in.POST("/documents/:id/decision", p.act(p.decide, "doc.decided"))
	in.POST("/documents/:id/import", p.act(p.markImported, "doc.marked_imported"))
	in.POST("/documents/:id/processstate", p.act(p.setProcessState, "doc.process_state_set"))
	in.POST("/documents/:id/resend", p.act(p.resend, "doc.resent"))
	in.GET("/documents/:id/correct", p.correctForm)
	in.POST("/documents/:id/correct", p.correct)
	in.GET("/validate", p.validateForm)
	in.POST("/validate", p.validate)
	in.GET("/account", p.account)
	in.POST("/account/password", p.changePassword)
	in.POST("/account/sessions/:id/end", p.endSession)
	p.settingsRoutes(in)
	in.GET("/connections", p.connections)
	in.POST("/connections", p.requestConnection)
	p.adminRoutes(in)
	g.RouteNotFound("/*", func(c echo.Context) error { return p.fail(c, http.StatusNotFound, "error.not_found") })
}

func cacheFor(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(int(d.Seconds())))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// headers sets the security headers of every portal answer; pages are never cached.
func (p *Portal) headers(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "SAMEORIGIN")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		return next(c)
	}
}

// crossOrigin answers a form posted from another site.
func (p *Portal) crossOrigin(w http.ResponseWriter, r *http.Request) {
	lang := i18n.Negotiate(r.Header.Get("Accept-Language"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	v := &web.ErrorPage{Base: web.Base{Title: i18n.T(lang, "error.title")}, Status: http.StatusForbidden,
		Message: i18n.T(lang, "error.cross_origin")}
	p.pages.Render(w, lang, "error", v)
}

// request is what a signed-in request carries.
type request struct {
	session store.Session
	user    store.User
	lang    string
}

const keyRequest = "portal.request"

func current(c echo.Context) *request { r, _ := c.Get(keyRequest).(*request); return r }

// loadSession finds the session of the cookie, if any, and the page's language.
func (p *Portal) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := &request{}
		if ck, err := c.Cookie(sessionCookie); err == nil {
			ss, u, err := p.wf.SessionUser(c.Request().Context(), ck.Value)
			switch {
			case err == nil:
				r.session, r.user = ss, u
				ctx := server.WithActor(c.Request().Context(), server.Actor{Kind: server.ActorPortal, Name: u.Username})
				c.SetRequest(c.Request().WithContext(ctx))
			case errors.Is(err, store.ErrNotFound):
				p.clearCookie(c, sessionCookie)
			default:
				return err
			}
		}
		r.lang = p.language(c, r.user)
		c.Set(keyRequest, r)
		return next(c)
	}
}

// language is the cookie's choice, else the user's, else the browser's.
func (p *Portal) language(c echo.Context, u store.User) string {
	if ck, err := c.Cookie(langCookie); err == nil && (ck.Value == i18n.PT || ck.Value == i18n.EN) {
		return ck.Value
	}
	if u.Lang == i18n.PT || u.Lang == i18n.EN {
		return u.Lang
	}
	return i18n.Negotiate(c.Request().Header.Get("Accept-Language"))
}

// signedIn sends anyone without a session to the sign-in form, coming back here afterwards.
func (p *Portal) signedIn(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if current(c).user.ID == 0 {
			if c.Request().Method != http.MethodGet {
				return p.fail(c, http.StatusUnauthorized, "error.not_found")
			}
			return c.Redirect(http.StatusSeeOther, "/portal/login?next="+url.QueryEscape(c.Request().URL.RequestURI()))
		}
		return next(c)
	}
}

func (p *Portal) setCookie(c echo.Context, name, value string, maxAge time.Duration) {
	c.SetCookie(&http.Cookie{Name: name, Value: value, Path: "/portal/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode})
}

func (p *Portal) clearCookie(c echo.Context, name string) {
	c.SetCookie(&http.Cookie{Name: name, Value: "", Path: "/portal/", MaxAge: -1, HttpOnly: true, Secure: p.secure,
		SameSite: http.SameSiteLaxMode})
}

// flash keeps a message (a catalogue key) for the next page.
func (p *Portal) flash(c echo.Context, isError bool, key string) {
	kind := "ok:"
	if isError {
		kind = "error:"
	}
	p.setCookie(c, flashCookie, kind+key, time.Minute)
}

// takeFlash reads and clears the message the previous action left.
func (p *Portal) takeFlash(c echo.Context, lang string) *web.Flash {
	ck, err := c.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	p.clearCookie(c, flashCookie)
	kind, key, _ := strings.Cut(ck.Value, ":")
	if !i18n.Has(key) {
		return nil
	}
	return &web.Flash{Error: kind == "error", Key: key, Text: i18n.T(lang, key)}
}

// render writes a page with status.
func (p *Portal) render(c echo.Context, status int, page string, v interface{ B() *web.Base }) error {
	r := current(c)
	b := v.B()
	b.Here = c.Request().URL.RequestURI()
	other := i18n.EN
	if r.lang == i18n.EN {
		other = i18n.PT
	}
	b.LangLink = "/portal/lang/" + other + "?next=" + url.QueryEscape(b.Here)
	c.Response().Header().Set("Content-Type", "text/html; charset=utf-8")
	c.Response().WriteHeader(status)
	return p.pages.Render(c.Response(), r.lang, page, v)
}

// fail shows the error page with a catalogue message.
func (p *Portal) fail(c echo.Context, status int, key string) error {
	r := current(c)
	if r == nil {
		r = &request{lang: i18n.Negotiate(c.Request().Header.Get("Accept-Language"))}
		c.Set(keyRequest, r)
	}
	v := &web.ErrorPage{Base: web.Base{Title: i18n.T(r.lang, "error.title")}, Status: status, Message: i18n.T(r.lang, key)}
	if r.user.ID != 0 {
		v.User = r.user.Username
	}
	return p.render(c, status, "error", v)
}

// switchLang remembers a language choice and goes back.
func (p *Portal) switchLang(c echo.Context) error {
	lang := c.Param("lang")
	if lang != i18n.PT && lang != i18n.EN {
		return p.fail(c, http.StatusNotFound, "error.not_found")
	}
	p.setCookie(c, langCookie, lang, 365*24*time.Hour)
	return c.Redirect(http.StatusSeeOther, localPath(c.QueryParam("next")))
}

// localPath is next when it is a path of the portal, else the dashboard: a redirect never leaves the
// site.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/portal/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/portal/"
	}
	return next
}

func minutes(d time.Duration) int { return int(math.Ceil(d.Minutes())) }
