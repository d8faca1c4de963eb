package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	dto "github.com/prometheus/client_model/go"
)

// allocatedBy is the memory the service allocates while handling req (runtime TotalAlloc), with its
// answer.
func allocatedBy(t *testing.T, h http.Handler, req *http.Request) (uint64, *httptest.ResponseRecorder) {
	t.Helper()
	rec := httptest.NewRecorder()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.ServeHTTP(rec, req)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, rec
}

func decoded(t *testing.T, rec *httptest.ResponseRecorder) response {
	t.Helper()
	r := response{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if err := json.Unmarshal(rec.Body.Bytes(), &r.body); err != nil {
		t.Fatalf("answer is not JSON: %v\n%.300s", err, r.raw)
	}
	return r
}

// emptyLines is a document body of n empty line objects.
func emptyLines(n int) string {
	return `{"lines":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}`
}

func TestLinesBombIsRefusedBeforeDecoding(t *testing.T) {
	env := newDocEnv(t)
	for _, c := range []struct {
		name, body string
		want       string
	}{
		{"a million empty lines", emptyLines(1_000_000), "lines:e302"},
		{"a hundred thousand tax items", `{"lines":[` + strings.TrimSuffix(strings.Repeat(`{"taxes":[`+strings.TrimSuffix(strings.Repeat("{},", 999), ",")+`]},`, 200), ",") + `]}`, "body:e302"},
		{"lists nested where a note goes", `{"notes":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`, "notes[0]:e302"},
		{"a million additional e-mails", `{"additional_emails":[` + strings.TrimSuffix(strings.Repeat(`"",`, 1_000_000), ",") + `]}`, "additional_emails:e302"},
		{"21 files", `{"files":[` + strings.TrimSuffix(strings.Repeat(`{},`, 21), ",") + `]}`, "files:e302"},
		{"unknown field deep down", `{"lines":[{},{"taxes":[{"colour":"blue"}]}]}`, "lines[1][taxes][0][colour]:e337"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/api/v1/en/apps/documents", strings.NewReader(c.body))
			for k, v := range env.as(env.entity, "application/json") {
				req.Header.Set(k, v)
			}
			start := time.Now()
			alloc, rec := allocatedBy(t, env.srv.Handler(), req)
			took := time.Since(start)
			expectError(t, decoded(t, rec), 400, c.want)
			t.Logf("%d bytes of body: %d bytes allocated, %v", len(c.body), alloc, took)
			if alloc > 3*uint64(len(c.body))+1<<20 {
				t.Errorf("%d bytes of body cost %d bytes of memory", len(c.body), alloc)
			}
		})
	}
}

func TestErrorListIsCapped(t *testing.T) {
	env := newDocEnv(t)
	check := func(t *testing.T, r response, minOmitted int) {
		t.Helper()
		if r.status != 400 {
			t.Fatalf("status %d: %.300s", r.status, r.raw)
		}
		errs, _ := r.body["errors"].(map[string]any)
		omitted, _ := r.body["errors_omitted"].(float64)
		if len(errs) != maxShownErrors || int(omitted) < minOmitted || len(r.raw) > maxErrorResponse {
			t.Fatalf("%d errors listed, %v omitted, %d bytes", len(errs), omitted, len(r.raw))
		}
	}
	t.Run("ten thousand empty lines", func(t *testing.T) {
		body := emptyLines(10_000)
		req := httptest.NewRequest("POST", "/api/v1/en/apps/documents", strings.NewReader(body))
		for k, v := range env.as(env.entity, "application/json") {
			req.Header.Set(k, v)
		}
		alloc, rec := allocatedBy(t, env.srv.Handler(), req)
		r := decoded(t, rec)
		// Each empty line lacks a name, a quantity, a price and its taxes: the list is full long before
		// the last line, and checking stops there.
		check(t, r, 1)
		t.Logf("%d bytes of body: %d bytes allocated, %d bytes answered", len(body), alloc, len(r.raw))
		if alloc > 16<<20 {
			t.Errorf("%d bytes allocated", alloc)
		}
	})
	t.Run("a thousand lines in bracket notation", func(t *testing.T) {
		fields := map[string]string{}
		for i := range 999 {
			fields[fmt.Sprintf("lines[%d][name]", i)] = "Artigo"
		}
		body, ct := multipartBody(t, fields, nil)
		check(t, env.post("/documents", env.entity, ct, body), 1)
	})
	t.Run("a line index past the limit", func(t *testing.T) {
		body, ct := multipartBody(t, map[string]string{"lines[999999][quantity]": "1"}, nil)
		expectError(t, env.post("/documents", env.entity, ct, body), 400, "lines:e302")
	})
}

func TestAnyErrorAnswerIsBounded(t *testing.T) {
	env := newTestEnv(t)
	answer := func(err error) response {
		rec := httptest.NewRecorder()
		c := env.srv.echo.NewContext(httptest.NewRequest("POST", "/api/v1/en/x", nil), rec)
		env.srv.errorHandler(err, c)
		return decoded(t, rec)
	}
	many := FieldErrors{}
	findings := make([]map[string]string, 5000)
	for i := range findings {
		findings[i] = map[string]string{"rule": "BR-01", "location": "/Invoice"}
	}
	for i := range 1000 {
		many[fmt.Sprintf("field%04d", i)] = Problem{Code: CodeInvalidValue}
	}
	many["field0000"] = Problem{Code: CodeInvalidDocument, Details: findings}
	many[strings.Repeat("k", 1<<20)] = Problem{Code: CodeInvalidValue, Text: map[string]string{"en": strings.Repeat("m", 1<<20)}}
	r := answer(many)
	errs := r.body["errors"].(map[string]any)
	first := errs["field0000"].(map[string]any)
	if len(errs) != maxShownErrors || r.body["errors_omitted"] != float64(901) ||
		len(first["details"].([]any)) != maxShownErrors || first["details_omitted"] != float64(4900) {
		t.Fatalf("%d errors, %v omitted, %d details, %v details omitted", len(errs), r.body["errors_omitted"],
			len(first["details"].([]any)), first["details_omitted"])
	}
	for name, item := range errs {
		if len(name) > maxFieldName+len("…") || len(item.(map[string]any)["msg"].(string)) > maxErrorMessage+len("…") {
			t.Fatalf("field %.20s… (%d bytes) kept whole", name, len(name))
		}
	}

	// Details too large to send are left out, and counted.
	huge := make([]string, maxShownErrors)
	for i := range huge {
		huge[i] = strings.Repeat("x", 20<<10)
	}
	r = answer(FieldErrors{"document": {Code: CodeInvalidDocument, Details: huge}})
	item := r.body["errors"].(map[string]any)["document"].(map[string]any)
	if len(r.raw) > maxErrorResponse || item["details"] != nil || item["details_omitted"] != float64(maxShownErrors) {
		t.Fatalf("%d bytes, details omitted %v", len(r.raw), item["details_omitted"])
	}
}

// serve runs the service on a real listener, as the binary does, until the test ends.
func serve(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return ln.Addr().String()
}

func TestSlowBodyIsCutOff(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.HTTP.BodyReadTimeout = 300 * time.Millisecond; c.Webhooks = DefaultWebhooks() })
	addr := serve(t, env.srv)

	// A client that sends its headers, then one byte of its body every 50 ms, is answered 408 and
	// disconnected when the body's time is up; the token endpoint needs no authentication.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "POST /api/v1/en/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
	go func() {
		for range 1000 {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 408 || !strings.Contains(string(body), `"e367"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the connection stays open: %v", err)
	}

	// The deadline ends with the body: work that runs past it is not cut short.
	env.srv.echo.POST("/test/slow", func(c echo.Context) error {
		if _, err := io.ReadAll(c.Request().Body); err != nil {
			return err
		}
		time.Sleep(600 * time.Millisecond)
		return c.String(200, fmt.Sprint(c.Request().Context().Err()))
	})
	resp, err = http.Post("http://"+addr+"/test/slow", "text/plain", strings.NewReader("quick body"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "<nil>" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestLargeBodiesWaitForRoom(t *testing.T) {
	env := newDocEnv(t, func(c *Config) {
		c.HTTP.LargeBodiesInFlight, c.HTTP.LargeBodyWait = 3<<20, 300*time.Millisecond
	})
	ts := httptest.NewServer(env.srv.Handler())
	defer ts.Close()
	post := func(body io.Reader, size int64) (*http.Response, error) {
		req, _ := http.NewRequest("POST", ts.URL+"/api/v1/en/apps/documentsUBL", body)
		req.ContentLength = size
		for k, v := range env.as(env.entity, "application/xml") {
			req.Header.Set(k, v)
		}
		return http.DefaultClient.Do(req)
	}
	const size = 2 << 20 // two of them do not fit in the budget

	// The first large body is under way (half sent) ...
	pr, pw := io.Pipe()
	first := make(chan *http.Response, 1)
	go func() {
		resp, err := post(pr, size)
		if err != nil {
			t.Error(err)
		}
		first <- resp
	}()
	pw.Write(bytes.Repeat([]byte(" "), size/2))
	for inFlight := (&dto.Metric{}); inFlight.GetGauge().GetValue() == 0; env.srv.metrics.largeBodies.Write(inFlight) {
		time.Sleep(10 * time.Millisecond)
	}

	// ... so a second one waits, then is refused with Retry-After; a small one passes meanwhile.
	resp, err := post(bytes.NewReader(bytes.Repeat([]byte(" "), size)), size)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), `"e366"`) || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second large body: %d %s", resp.StatusCode, body)
	}
	small := buildXML(t, env, "FT 2026/70", "500000000")
	if resp, err := post(bytes.NewReader(small), int64(len(small))); err != nil || resp.StatusCode != 201 {
		t.Fatalf("small body: %v %v", resp.StatusCode, err)
	}

	// Once the first is done, the budget is free again.
	pw.Write(bytes.Repeat([]byte(" "), size/2))
	pw.Close()
	if resp := <-first; resp == nil || resp.StatusCode == 503 {
		t.Fatal("the first large body was refused")
	}
	resp, err = post(bytes.NewReader(bytes.Repeat([]byte(" "), size)), size)
	if err != nil || resp.StatusCode == 503 {
		t.Fatalf("a large body after the first: %v %v", resp.StatusCode, err)
	}
}

func TestMultipartFilesWaitOnDiskAndAreRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	env := newDocEnv(t)
	spooled := 0
	env.srv.echo.POST("/test/upload", func(c echo.Context) error {
		entries, _ := os.ReadDir(tmp)
		spooled = len(entries)
		return c.NoContent(204)
	}, spoolForms)
	file := bytes.Repeat([]byte("a;b;c\n"), 200_000) // 1.2 MB
	body, ct := multipartBody(t, map[string]string{"note": "x"}, map[string][]byte{"files[]": file})
	if r := env.do("POST", "/test/upload", map[string]string{"Content-Type": ct}, body); r.status != 204 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	left, _ := os.ReadDir(tmp)
	if spooled != 1 || len(left) != 0 {
		t.Fatalf("%d files spooled during the request, %d left after it", spooled, len(left))
	}
}

func TestTokenRequestBodyIsSmall(t *testing.T) {
	env := newTestEnv(t) // body_limit 1 MiB; the token endpoint takes far less
	body := `{"grant_type":"client_credentials","padding":"` + strings.Repeat("x", tokenBodyLimit) + `"}`
	expectError(t, env.do("POST", "/api/v1/en/oauth2/token", jsonHeader, body), 413, "e332")
	// Whatever the fields hold, nothing but the fields is kept.
	list := `{"grant_type":"client_credentials","a":[` + strings.TrimSuffix(strings.Repeat("1,", 30_000), ",") + `]}`
	req := httptest.NewRequest("POST", "/api/v1/en/oauth2/token", strings.NewReader(list))
	req.Header.Set("Content-Type", "application/json")
	alloc, rec := allocatedBy(t, env.srv.Handler(), req)
	if rec.Code != 400 || alloc > 3*uint64(len(list))+1<<20 {
		t.Fatalf("%d, %d bytes allocated for %d bytes", rec.Code, alloc, len(list))
	}
}

// A creation that runs past server.request_timeout stops (validation included) and says so: 503 e369,
// nothing stored.
func TestRequestTimeoutStopsTheWork(t *testing.T) {
	env := newDocEnv(t)
	xml := string(buildXML(t, env, "T1", env.customer.NIF))
	env.srv.cfg.HTTP.RequestTimeout = time.Nanosecond
	expectError(t, env.post("/documentsUBL", env.entity, "application/xml", xml), 503, "e369")
	env.srv.cfg.HTTP.RequestTimeout = 10 * time.Second
	created(t, env.post("/documentsUBL", env.entity, "application/xml", xml)) // not there before: created, not edited
}
