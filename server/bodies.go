package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/semaphore"
)

// Request bodies are bounded in size (limitBody), in the time they take to arrive (bodyDeadline),
// and, when large, in how many are handled at once (admitLargeBodies); multipart files wait on disk,
// not in memory (spoolForms).

// limitBody refuses bodies over limit with 413, whether announced or streamed.
func limitBody(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.ContentLength > limit {
				return fail(CodeBodyTooLarge)
			}
			if req.Body != nil {
				req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, limit)
			}
			return next(c)
		}
	}
}

// bodyDeadline gives a request body [server] body_read_timeout to arrive, as ReadHeaderTimeout does
// its headers: a client that trickles its body is cut off (408 e361). The deadline is lifted once the
// body has been read, so that it never ends the work that follows.
func bodyDeadline(timeout time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if timeout <= 0 || req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0 {
				return next(c)
			}
			b := &deadlineBody{ReadCloser: req.Body, rc: http.NewResponseController(c.Response().Writer), timeout: timeout}
			if b.restart() { // false: not served over a connection (tests through a recorder)
				req.Body = b
			}
			return next(c)
		}
	}
}

// deadlineBody is a request body with a read deadline on its connection until it has been read.
type deadlineBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	done    bool
}

// restart sets the deadline timeout from now, unless the body has been read.
func (b *deadlineBody) restart() bool {
	return b.done || b.rc.SetReadDeadline(time.Now().Add(b.timeout)) == nil
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		// The server now waits in the background for the client's next request, or its going away;
		// a deadline left on that read would cancel the request's context.
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// largeBody is the size from which a request body is admitted through the large-body budget.
const largeBody = 1 << 20

// admitLargeBodies bounds the memory that large bodies take at once. A body of largeBody bytes or more
// (as announced; the body limit when it is not) is handled only while the bodies under way add up to
// at most [server] large_bodies_in_flight; it waits for room at most large_body_wait, then gets 503
// e360 with Retry-After. Handling an upload takes a few times its size (the file, the XML it is
// embedded in, its validation and signature), so this budget, not the number of clients, sets the
// process's peak memory. Zero admits every body at once.
func (s *Server) admitLargeBodies() echo.MiddlewareFunc {
	budget, wait := s.cfg.HTTP.LargeBodiesInFlight, s.cfg.HTTP.LargeBodyWait
	var sem *semaphore.Weighted
	if budget > 0 {
		sem = semaphore.NewWeighted(budget)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			size := req.ContentLength
			if size < 0 {
				size = s.cfg.HTTP.BodyLimit
			}
			if sem == nil || size < largeBody {
				return next(c)
			}
			size = min(size, budget)
			ctx, cancel := context.WithTimeout(req.Context(), wait)
			err := sem.Acquire(ctx, size)
			cancel()
			if b, ok := req.Body.(*deadlineBody); ok {
				b.restart() // the wait does not count against the time the body has to arrive
			}
			if err != nil {
				// Read the body away (into nothing, within its deadline) before answering: a client still
				// sending would otherwise see its connection reset instead of the answer.
				io.Copy(io.Discard, req.Body)
				return retryLater(CodeBusy, 5*time.Second)
			}
			s.metrics.largeBodies.Add(float64(size))
			defer func() {
				s.metrics.largeBodies.Sub(float64(size))
				sem.Release(size)
			}()
			return next(c)
		}
	}
}

// formMemory is how much of a multipart body's files is kept in memory; the rest is written to
// temporary files, removed when the request ends.
const formMemory = 256 << 10

// spoolForms reads a multipart body before the handler, keeping its files on disk.
func spoolForms(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); mt != mimeMultipart {
			return next(c)
		}
		if err := req.ParseMultipartForm(formMemory); err != nil {
			return bodyError(err)
		}
		defer req.MultipartForm.RemoveAll()
		return next(c)
	}
}

// readBody reads a request body whole; an announced length sizes the buffer at once.
func readBody(r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	if r.ContentLength > 0 { // at most the body limit: limitBody refused longer ones
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(r.Body); err != nil {
		return nil, bodyError(err)
	}
	return buf.Bytes(), nil
}

// bodyError is a 413 for an over-long body, a 408 for one that did not arrive in time and a 400 for
// one that cannot be read.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return fail(CodeBodyTooLarge)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &apiError{code: CodeBodyTimeout, header: http.Header{"Connection": {"close"}}}
	}
	return fieldError("body", CodeBadRequest)
}
