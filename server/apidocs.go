package server

import (
	"net/http"

	"einvoice/server/openapi"

	"github.com/labstack/echo/v4"
)

// The API's contract, served: the OpenAPI document (server/openapi/openapi.yaml) in JSON and YAML, and
// the reference page built from it, which needs no script and nothing from outside the service.

// referencePolicy lets the reference page use its own stylesheet and nothing else.
const referencePolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'self'; base-uri 'none'"

// apiDocRoutes are the routes of the document and its reference page; none needs credentials.
func (s *Server) apiDocRoutes(e *echo.Echo) {
	e.GET("/api/v1/openapi.json", s.serveContract("application/json", openapi.JSON))
	e.GET("/api/v1/openapi.yaml", s.serveContract("application/yaml", func() ([]byte, error) { return openapi.YAML(), nil }))
	e.GET("/api/docs", s.serveContract("text/html; charset=utf-8", openapi.Reference))
	e.GET("/api/docs/reference.css", s.serveContract("text/css; charset=utf-8", func() ([]byte, error) { return openapi.Stylesheet, nil }))
}

func (s *Server) serveContract(contentType string, body func() ([]byte, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		b, err := body()
		if err != nil {
			return err
		}
		h := c.Response().Header()
		h.Set("Content-Security-Policy", referencePolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=300")
		return c.Blob(http.StatusOK, contentType, b)
	}
}
