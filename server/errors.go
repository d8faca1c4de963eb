package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// apiError is an error the API answers with the array envelope and its code's status:
// {success:false, errors:[{code,msg}]}.
type apiError struct {
	code   *Code
	header http.Header
}

func (e *apiError) Error() string { return e.code.ID + " " + e.code.Msg("en") }

// fail returns the error for a code.
func fail(code *Code) error { return &apiError{code: code} }

// Problem is one field's entry in a 400 answer. Text, when set, replaces the code's text (for example a
// validation message that begins with a rule id); Details carries extra data beside it.
type Problem struct {
	Code    *Code
	Text    map[string]string // by language
	Details any
}

// FieldErrors is a 400 answered as {success:false, errors:{<field>:{code,msg}}}.
//
// However many problems a request has, its answer stays small: at most maxShownErrors fields are
// listed (in field-name order), and the envelope's "errors_omitted" counts the problems left out (at
// least that many: checking may stop once the list is full); a problem's details, when a list (the findings of e217), show at most maxShownErrors items, and the
// field's "details_omitted" counts the rest. Field names and messages are cut to a bounded length, and
// when the answer would still pass maxErrorResponse the details are left out (and counted).
type FieldErrors map[string]Problem

func (e FieldErrors) Error() string {
	s := "invalid fields:"
	for _, k := range slices.Sorted(maps.Keys(e)) {
		s += " " + k + "=" + e[k].Code.ID
	}
	return s
}

// fieldError is a FieldErrors with one field.
func fieldError(field string, code *Code) error {
	return FieldErrors{field: {Code: code}}
}

// Bounds of an error answer.
const (
	maxShownErrors   = 100     // fields, and items of a field's details list
	maxFieldName     = 256     // bytes of a field name (names can echo a client's keys)
	maxErrorMessage  = 2048    // bytes of a message (messages can quote a document)
	maxErrorResponse = 1 << 20 // bytes of the whole answer
)

// truncatedErrors are FieldErrors from a producer that stopped recording after maxShownErrors
// problems; omitted counts the ones it did not record.
type truncatedErrors struct {
	FieldErrors
	omitted int
}

func (e truncatedErrors) Unwrap() error { return e.FieldErrors }

type errorItem struct {
	Code      string `json:"code"`
	Msg       string `json:"msg"`
	RequestID string `json:"request_id,omitempty"`
}

type fieldItem struct {
	Code           string `json:"code"`
	Msg            string `json:"msg"`
	Details        any    `json:"details,omitempty"`
	DetailsOmitted int    `json:"details_omitted,omitempty"` // items of a details list not shown
}

type errorEnvelope struct {
	Success bool `json:"success"`
	Errors  any  `json:"errors"`
	Omitted int  `json:"errors_omitted,omitempty"` // fields with problems not listed in errors
}

// errorHandler turns every error a handler or middleware returns into one of the spec's envelopes.
// Unexpected errors are logged once with the request id and answered with a generic 500.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	lang := langOf(c)
	var fe FieldErrors
	if errors.As(err, &fe) {
		s.respondFieldErrors(c, fe, lang, err)
		return
	}
	code := codeFor(err)
	if ae, ok := err.(*apiError); ok {
		for k, v := range ae.header {
			c.Response().Header()[k] = v
		}
	}
	item := errorItem{Code: code.ID, Msg: code.Msg(lang)}
	if code == CodeInternal {
		item.RequestID = requestID(c)
		s.log.Error("request failed", "request_id", item.RequestID, "method", c.Request().Method,
			"path", c.Request().URL.Path, "err", err)
	}
	s.respondError(c, code.Status, []errorItem{item})
}

func (s *Server) respondError(c echo.Context, status int, errs any) {
	s.writeError(c, status, errorEnvelope{Success: false, Errors: errs})
}

func (s *Server) writeError(c echo.Context, status int, env errorEnvelope) {
	var err error
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.JSON(status, env)
	}
	if err != nil {
		s.log.Debug("writing error response", slog.Any("err", err))
	}
}

// respondFieldErrors answers a 400 with the field-keyed envelope, within the bounds above.
func (s *Server) respondFieldErrors(c echo.Context, fe FieldErrors, lang string, err error) {
	env := errorEnvelope{Success: false}
	var te truncatedErrors
	if errors.As(err, &te) {
		env.Omitted = te.omitted
	}
	fields := slices.Sorted(maps.Keys(fe))
	if len(fields) > maxShownErrors {
		env.Omitted += len(fields) - maxShownErrors
		fields = fields[:maxShownErrors]
	}
	body := make(map[string]fieldItem, len(fields))
	for _, field := range fields {
		p := fe[field]
		msg := p.Code.Msg(lang)
		if t, ok := p.Text[lang]; ok {
			msg = t
		}
		item := fieldItem{Code: p.Code.ID, Msg: clip(msg, maxErrorMessage), Details: p.Details}
		if v := reflect.ValueOf(p.Details); v.Kind() == reflect.Slice && v.Len() > maxShownErrors {
			item.Details, item.DetailsOmitted = v.Slice(0, maxShownErrors).Interface(), v.Len()-maxShownErrors
		}
		body[clip(field, maxFieldName)] = item
	}
	env.Errors = body
	if b, err := json.Marshal(env); err != nil || len(b) > maxErrorResponse {
		for field, item := range body {
			if item.Details != nil {
				if v := reflect.ValueOf(item.Details); v.Kind() == reflect.Slice {
					item.DetailsOmitted += v.Len()
				} else {
					item.DetailsOmitted++
				}
				item.Details = nil
				body[field] = item
			}
		}
	}
	s.writeError(c, http.StatusBadRequest, env)
}

// clip cuts s to at most n bytes, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// codeFor maps an error to its registered code.
func codeFor(err error) *Code {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.code
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return CodeBodyTooLarge
	}
	if errors.Is(err, context.DeadlineExceeded) { // past server.request_timeout: the work was stopped
		return CodeRequestTimeout
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return CodeNotFound
		case http.StatusMethodNotAllowed:
			return CodeMethodNotAllowed
		case http.StatusRequestEntityTooLarge:
			return CodeBodyTooLarge
		case http.StatusUnsupportedMediaType:
			return CodeUnsupportedMedia
		case http.StatusUnauthorized:
			return CodeInvalidAuth
		case http.StatusServiceUnavailable:
			return CodeServiceUnavailable
		}
		if he.Code >= 400 && he.Code < 500 {
			return CodeBadRequest
		}
	}
	return CodeInternal
}

// success is the success envelope {success, message {code, msg}, response}.
type success struct {
	Success  any             `json:"success"`
	Message  *successMessage `json:"message,omitempty"`
	Response any             `json:"response,omitempty"`
}

type successMessage struct {
	Code string `json:"code"`
	Msg  string `json:"msg"`
}

// respond writes the success envelope with the code's status.
func respond(c echo.Context, code *Code, response any) error {
	return c.JSON(code.Status, success{Success: true, Message: &successMessage{code.ID, code.Msg(langOf(c))}, Response: response})
}

// respondData writes {success:true, response:{data: ...}} with status 200, as document and connection
// reads do.
func respondData(c echo.Context, successValue any, data any) error {
	return c.JSON(http.StatusOK, success{Success: successValue, Response: map[string]any{"data": data}})
}
