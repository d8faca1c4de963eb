package server

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/store"

	"github.com/labstack/echo/v4"
)

const (
	mimeJSON      = "application/json"
	mimeForm      = "application/x-www-form-urlencoded"
	mimeMultipart = "multipart/form-data"
	mimeXML       = "application/xml"
	mimeTextXML   = "text/xml"
)

// Context keys.
const (
	keyLang       = "lang"
	keyCredential = "credential"
	keyEntity     = "entity"
	keyScopes     = "scopes"
)

func newRequestID() string { return store.RandomToken(8) }

func requestID(c echo.Context) string { return c.Response().Header().Get(echo.HeaderXRequestID) }

// withLang records the API language of the route group.
func withLang(lang string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(keyLang, lang)
			return next(c)
		}
	}
}

// langOf is the call's language: from its route group, or from the path for unmatched routes.
func langOf(c echo.Context) string {
	if l, ok := c.Get(keyLang).(string); ok {
		return l
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/v1/en/") {
		return "en"
	}
	return "pt"
}

// observe answers errors here (so that the final status is known) and records the request's route,
// status and latency.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		route := c.Path()
		if route == "" || c.Response().Status == http.StatusNotFound && route == "/*" {
			route = "unmatched"
		}
		s.metrics.observeRequest(c.Request().Method, route, c.Response().Status, time.Since(start))
		return nil
	}
}

// recoverPanics turns a panic in a handler into a logged 500.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		return next(c)
	}
}

// timeout bounds how long a request's work may take.
func (s *Server) timeout(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.HTTP.RequestTimeout)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// accepts refuses a request body of any other media type with 415.
func accepts(types ...string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			mt, _, err := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
			if err != nil || !slices.Contains(types, mt) {
				return fail(CodeUnsupportedMedia)
			}
			return next(c)
		}
	}
}

// needs refuses a token without the scope with 403.
func needs(scope string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			scopes, _ := c.Get(keyScopes).([]string)
			if !slices.Contains(scopes, scope) {
				return fail(CodeMissingScope)
			}
			return next(c)
		}
	}
}

// authenticate resolves the bearer credential (an access token or a legacy platform token) and the
// acting entity (header "entity": its public key), and checks the credential may act for it. Every
// failure is the same 401 e069, so nothing about which part failed is revealed.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		bearer, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
		bearer = strings.TrimSpace(bearer)
		if !ok || bearer == "" {
			return fail(CodeInvalidAuth)
		}
		address := clientAddress(c)
		if err := s.authFailures.check(ctx, address, s.now()); err != nil {
			return err
		}
		var cred store.Credential
		var scopes []string
		var err error
		if strings.HasPrefix(bearer, store.PlatformTokenPrefix) {
			cred, err = s.store.CredentialByPlatformToken(ctx, bearer)
			if err == nil && cred.Disabled {
				err = store.ErrNotFound
			}
			scopes = cred.Scopes
		} else {
			var tok store.AccessToken
			tok, err = s.store.LookupAccessToken(ctx, bearer)
			cred.ID, cred.Kind, scopes = tok.CredentialID, store.KindClient, tok.Scopes
		}
		if errors.Is(err, store.ErrNotFound) {
			return s.authFailures.fail(ctx, fail(CodeInvalidAuth), address, "", s.now())
		}
		if err != nil {
			return err
		}
		if err := countRequest(ctx, s.limiter, strconv.FormatInt(cred.ID, 10), s.now()); err != nil {
			return err
		}
		entity, access, err := s.store.EntityAccess(ctx, strings.TrimSpace(c.Request().Header.Get("entity")), cred.ID)
		if err != nil {
			return authFailure(err)
		}
		isHandshake := strings.HasSuffix(c.Path(), "/apps/authentications")
		if !access.Authorized || cred.Kind == store.KindPlatform && !access.Handshake && !isHandshake {
			return fail(CodeInvalidAuth)
		}
		c.Set(keyCredential, cred)
		c.Set(keyScopes, scopes)
		c.Set(keyEntity, entity)
		return next(c)
	}
}

// authFailure is e069 for "not found", and the error itself otherwise (a database failure is a 500,
// not a reason to tell the integrator its credentials are wrong).
func authFailure(err error) error {
	if err == nil || err == store.ErrNotFound {
		return fail(CodeInvalidAuth)
	}
	return err
}

func actingEntity(c echo.Context) store.Entity { e, _ := c.Get(keyEntity).(store.Entity); return e }
func actingCredential(c echo.Context) store.Credential {
	k, _ := c.Get(keyCredential).(store.Credential)
	return k
}
