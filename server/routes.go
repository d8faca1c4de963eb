package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Scopes a token may carry; each /apps route declares the one it needs.
const (
	ScopeDocumentCreate      = "document_create"
	ScopeDocumentRead        = "document_read"
	ScopeDocumentUpdate      = "document_update"
	ScopeStatesRead          = "states_read"
	ScopeExternalConnections = "external_connections"
)

// AllScopes is every scope, in the order tokens list them.
var AllScopes = []string{ScopeDocumentCreate, ScopeDocumentRead, ScopeDocumentUpdate, ScopeStatesRead, ScopeExternalConnections}

// routes is the route table: one line per endpoint, the scope it needs and its handler.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}))
	e.Use(s.observe)
	e.Use(s.recoverPanics)
	e.Use(limitBody(s.cfg.HTTP.BodyLimit))
	e.Use(bodyDeadline(s.cfg.HTTP.BodyReadTimeout))
	e.Use(s.timeout)
	trusted, err := ParseTrustedProxies(s.cfg.HTTP.TrustedProxies)
	if err != nil {
		s.log.Error("server.trusted_proxies ignored", "err", err)
	}
	e.Use(resolveClient(trusted))

	e.GET("/healthz", s.healthz)
	s.apiDocRoutes(e) // the OpenAPI document and its reference page
	e.GET("/public/documents/:id/:file", s.publicDownload)
	e.GET("/public/emails/:token", s.emailOpened)
	e.POST("/as2", s.receiveAS2())
	if s.cfg.HTTP.MetricsListen == "" {
		e.GET("/metrics", echo.WrapHandler(s.metricsHandler()))
	}

	// Middleware is attached per route, not per group: a group with middleware answers every unknown
	// path itself, which would turn a wrong method (405) into 404.
	admit := s.admitLargeBodies() // one budget for every route
	for _, lang := range []string{"pt", "en"} {
		base, l := "/api/v1/"+lang, withLang(lang)
		e.POST(base+"/oauth2/token", s.issueToken, l, limitBody(tokenBodyLimit), accepts(mimeJSON, mimeForm))

		// apps adds an /apps route: authenticated, with the scope it needs and, for a body, the media
		// types it takes; a large body waits for room, a multipart one is read with its files on disk.
		apps := func(method, path string, h echo.HandlerFunc, scope string, bodyTypes ...string) {
			chain := []echo.MiddlewareFunc{l, s.authenticate}
			if scope != "" {
				chain = append(chain, needs(scope))
			}
			if len(bodyTypes) > 0 {
				chain = append(chain, accepts(bodyTypes...), admit, spoolForms)
			}
			e.Add(method, base+"/apps"+path, h, chain...)
		}
		apps(http.MethodPost, "/authentications", s.handshake, "")
		apps(http.MethodDelete, "/authentications", s.revokeHandshake, "")
		apps(http.MethodGet, "/external-connections", s.listConnections, ScopeExternalConnections)
		apps(http.MethodGet, "/external-connections/:id", s.getConnection, ScopeExternalConnections)
		apps(http.MethodPost, "/external-connections", s.createConnections, ScopeExternalConnections, mimeForm, mimeMultipart)
		apps(http.MethodPost, "/documentsUBL", s.createDocumentUBL, ScopeDocumentCreate, mimeMultipart, mimeXML, mimeTextXML)
		apps(http.MethodPost, "/documents", s.createDocument, ScopeDocumentCreate, mimeMultipart, mimeJSON)
		apps(http.MethodGet, "/documents", s.listDocuments, ScopeDocumentRead)
		apps(http.MethodGet, "/documents/:id", s.getDocument, ScopeDocumentRead)
		apps(http.MethodPost, "/documents/:id", s.importDocument, ScopeDocumentUpdate)
		apps(http.MethodPost, "/documents/:id/accepted", s.acceptDocument, ScopeDocumentUpdate, mimeJSON, mimeForm, mimeMultipart)
		apps(http.MethodGet, "/processstates", s.listProcessStates, ScopeDocumentRead)
		apps(http.MethodPut, "/documents/:id/processstates", s.setProcessState, ScopeDocumentUpdate, mimeJSON, mimeForm, mimeMultipart)
		apps(http.MethodGet, "/documents/:id/history", s.documentHistory, ScopeDocumentRead)
		apps(http.MethodGet, "/documents/:id/xml", s.downloadXML, ScopeDocumentRead)
		apps(http.MethodGet, "/documents/:id/pdf", s.downloadPDF, ScopeDocumentRead)
		apps(http.MethodGet, "/documents/:id/files/:file", s.downloadFile, ScopeDocumentRead)
		apps(http.MethodDelete, "/documents/:id/links", s.revokeFileLinks, ScopeDocumentRead)
		apps(http.MethodGet, "/states-report/documents", s.statesReport, ScopeStatesRead)
		apps(http.MethodPost, "/states-report/documents/read", s.markEventsRead, ScopeStatesRead, mimeJSON, mimeForm, mimeMultipart)
	}
	return e
}

// healthz answers 200 when the process runs and the database answers, 503 otherwise.
func (s *Server) healthz(c echo.Context) error {
	if err := s.store.Ping(c.Request().Context()); err != nil {
		s.log.Error("health check: database", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "error"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "database": "ok"})
}
