package server

import (
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"

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

type errorItem struct {
	Code      string `json:"code"`
	Msg       string `json:"msg"`
	RequestID string `json:"request_id,omitempty"`
}

type fieldItem struct {
	Code    string `json:"code"`
	Msg     string `json:"msg"`
	Details any    `json:"details,omitempty"`
}

type errorEnvelope struct {
	Success bool `json:"success"`
	Errors  any  `json:"errors"`
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
		body := make(map[string]fieldItem, len(fe))
		for field, p := range fe {
			msg := p.Code.Msg(lang)
			if t, ok := p.Text[lang]; ok {
				msg = t
			}
			body[field] = fieldItem{Code: p.Code.ID, Msg: msg, Details: p.Details}
		}
		s.respondError(c, http.StatusBadRequest, body)
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
	var err error
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.JSON(status, errorEnvelope{Success: false, Errors: errs})
	}
	if err != nil {
		s.log.Debug("writing error response", slog.Any("err", err))
	}
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
