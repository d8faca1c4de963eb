package server

import (
	"errors"
	"strconv"
	"time"

	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// What the front ends beside the API (the portal, the admin commands) need from the service.

// Echo is the service's router, for front ends that add their own routes (the portal).
func (s *Server) Echo() *echo.Echo { return s.echo }

// FieldCodes are the codes of a workflow error, by field ("" for an error of no field); nil when the
// error is not one the registry knows (an internal error).
func FieldCodes(err error) map[string]*Code {
	var ae *apiError
	if errors.As(err, &ae) {
		return map[string]*Code{"": ae.code}
	}
	var fe FieldErrors
	if errors.As(err, &fe) {
		out := make(map[string]*Code, len(fe))
		for field, p := range fe {
			out[field] = p.Code
		}
		return out
	}
	return nil
}

// DocumentRef is how a document is named in links: its public identifier.
func DocumentRef(d store.Document) string { return d.PublicID }

// RetryAfter is how long a throttled caller must wait; false when err is not a throttling.
func RetryAfter(err error) (time.Duration, bool) {
	var ae *apiError
	if !errors.As(err, &ae) || ae.header.Get("Retry-After") == "" {
		return 0, false
	}
	secs, _ := strconv.Atoi(ae.header.Get("Retry-After"))
	return time.Duration(secs) * time.Second, true
}

// ClientAddress is the address a request came from: the TCP peer, or what a trusted proxy says.
func ClientAddress(c echo.Context) string { return clientAddress(c) }
