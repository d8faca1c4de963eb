package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/server/openapi"
	"einvoice/server/openapi/client"
	"einvoice/ubl"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// The generated client drives the real binary (`serve --demo`) through the main flows: a token, a
// document issued by data and one by XML, the recipient's list, reads, history, import, acceptance
// and rejection, and the issuer's states report. Every answer is also validated against the document.

func TestMainFlowsAgainstTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	creds := startDemo(t)
	issuer, recipient := creds.Entities[0].PublicKey, creds.Entities[1].PublicKey
	v := &validator{t: t}
	ctx := context.Background()
	plain, err := client.NewClientWithResponses(creds.APIBase, client.WithHTTPClient(&http.Client{Transport: v, Timeout: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}

	// A token, signed as the contract says.
	ts, nonce := time.Now().Unix(), "e2e"+strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	var stamp client.TokenRequest_Timestamp
	stamp.FromTokenRequestTimestamp0(int(ts))
	tok, err := plain.PostOauth2TokenWithResponse(ctx, client.TokenRequest{GrantType: client.ClientCredentials, ClientId: creds.ClientID,
		Timestamp: stamp, Nonce: nonce, Signature: server.RequestSignature(creds.ClientID, strconv.FormatInt(ts, 10), nonce, []byte(creds.ClientSecret))})
	if err != nil || tok.JSON200 == nil {
		t.Fatalf("token: %v %s", err, body(tok))
	}
	as := func(entity string) client.RequestEditorFn {
		return func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+tok.JSON200.AccessToken)
			req.Header.Set("entity", entity)
			return nil
		}
	}
	c, err := client.NewClientWithResponses(creds.APIBase, client.WithHTTPClient(&http.Client{Transport: v, Timeout: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}

	// Issue by data: the sample invoice of docs/, to the other demo entity.
	sample, err := os.ReadFile("../../../docs/sample-invoice.json")
	if err != nil {
		t.Fatal(err)
	}
	var data client.DocumentData
	if err := json.Unmarshal(sample, &data); err != nil {
		t.Fatal(err)
	}
	data.Number.FromText0("E2E/1")
	byData, err := c.PostDocumentWithResponse(ctx, data, as(issuer))
	if err != nil || byData.JSON201 == nil || byData.JSON201.Message.Code != "s011" {
		t.Fatalf("issue by data: %v %s", err, body(byData))
	}
	first := byData.JSON201.Response.Data.Id

	// Issue by XML: the first document's XML, renumbered.
	xml, err := c.GetDocumentXMLWithResponse(ctx, first, as(issuer))
	if err != nil || xml.StatusCode() != 200 {
		t.Fatalf("xml: %v %d", err, xml.StatusCode())
	}
	model, err := ubl.ReadBytes(xml.Body)
	if err != nil {
		t.Fatal(err)
	}
	model.Number = "E2E/2"
	renumbered, err := ubl.Generate(model)
	if err != nil {
		t.Fatal(err)
	}
	byXML, err := c.PostDocumentUBLWithBodyWithResponse(ctx, nil, "application/xml", bytes.NewReader(renumbered), as(issuer))
	if err != nil || byXML.JSON201 == nil || byXML.JSON201.Message.Code != "s011" {
		t.Fatalf("issue by XML: %v %s", err, body(byXML))
	}
	second := byXML.JSON201.Response.Data.Id

	// The recipient's list has both; the issuer finds its own by number.
	received := listed(t, c, ctx, &client.GetDocumentsParams{}, as(recipient))
	for _, id := range []string{first, second} {
		if !slices.Contains(received, id) {
			t.Errorf("received list %v lacks %s", received, id)
		}
	}
	issued, number := client.GetDocumentsParamsDocumentTypeIssued, "E2E/2"
	if got := listed(t, c, ctx, &client.GetDocumentsParams{DocumentType: &issued, DocumentNumber: &number}, as(issuer)); !slices.Equal(got, []string{second}) {
		t.Errorf("issued lookup by document_number: %v, want [%s]", got, second)
	}

	// Reads: the document and its history.
	if doc, err := c.GetDocumentWithResponse(ctx, first, as(recipient)); err != nil {
		t.Errorf("get: %v", err)
	} else if doc.JSON200 == nil || doc.JSON200.Response.Data.Number != "E2E/1" {
		t.Errorf("get: %s", body(doc))
	} else {
		// Each attachment downloads from its link alone, with no API headers.
		for _, a := range doc.JSON200.Response.Data.Attachments {
			resp, err := http.Get(a.File)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("attachment %s (%s): %d without headers", a.Identifier, a.File, resp.StatusCode)
			}
		}
	}
	hist, err := c.GetDocumentHistoryWithResponse(ctx, first, as(issuer))
	if err != nil || hist.JSON200 == nil || len(hist.JSON200.Response.Data) == 0 {
		t.Fatalf("history: %v %s", err, body(hist))
	}

	// The recipient imports the first and accepts it, and rejects the second.
	if imp, err := c.PostDocumentsWithResponse(ctx, first, as(recipient)); err != nil || imp.JSON200 == nil || imp.JSON200.Message.Code != "s303" {
		t.Fatalf("import: %v %s", err, body(imp))
	}
	var yes, no client.Decision_Accepted
	yes.FromDecisionAccepted1(true)
	no.FromDecisionAccepted1(false)
	reason := "Falta o número de compromisso."
	for id, d := range map[string]client.Decision{first: {Accepted: yes}, second: {Accepted: no, Reason: &reason}} {
		r, err := c.PostDocumentsAcceptedWithResponse(ctx, id, d, as(recipient))
		if err != nil || r.JSON200 == nil || r.JSON200.Message.Code != "s304" {
			t.Fatalf("decision on %s: %v %s", id, err, body(r))
		}
	}

	// The issuer's states report has both decisions; it marks them read and the report empties.
	report, err := c.GetStatesReportWithResponse(ctx, &client.GetStatesReportParams{}, as(issuer))
	if err != nil || report.JSON200 == nil {
		t.Fatalf("states report: %v %s", err, body(report))
	}
	states, events := map[string]string{}, []string{}
	for _, e := range report.JSON200.Response.Data {
		states[e.DocumentId] = string(e.StateDocument.Alias)
		events = append(events, e.Id)
	}
	if states[first] != "accepted" || states[second] != "rejected" {
		t.Errorf("states report: %v", states)
	}
	read, err := c.PostStatesReportReadWithResponse(ctx, client.PostStatesReportReadJSONRequestBody{Events: events}, as(issuer))
	if err != nil || read.JSON200 == nil || read.JSON200.Response.Data.Read != len(events) {
		t.Fatalf("read: %v %s", err, body(read))
	}
	if again, err := c.GetStatesReportWithResponse(ctx, &client.GetStatesReportParams{}, as(issuer)); err != nil || again.JSON200 == nil || len(again.JSON200.Response.Data) != 0 {
		t.Errorf("states report after reading: %v %s", err, body(again))
	}
	v.done()
}

// listed is the ids of a list.
func listed(t *testing.T, c *client.ClientWithResponses, ctx context.Context, p *client.GetDocumentsParams, as client.RequestEditorFn) []string {
	t.Helper()
	r, err := c.GetDocumentsWithResponse(ctx, p, as)
	if err != nil || r.JSON200 == nil {
		t.Fatalf("list: %v %s", err, body(r))
	}
	var ids []string
	for _, d := range r.JSON200.Response.Data {
		ids = append(ids, d.Id)
	}
	return ids
}

// body writes a generated answer for a failure message: its status and body.
func body(r interface{ StatusCode() int }) string {
	if r == nil || reflect.ValueOf(r).IsNil() {
		return "(no answer)"
	}
	raw := reflect.ValueOf(r).Elem().FieldByName("Body").Bytes()
	return strconv.Itoa(r.StatusCode()) + " " + string(raw)
}

// validator is the client's transport: it validates every request and answer against the document.
type validator struct {
	t        *testing.T
	mu       sync.Mutex
	problems []string
}

var router = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi.Load()
	if err != nil {
		return nil, err
	}
	for _, mt := range []string{"application/xml", "text/xml", "application/pdf"} {
		openapi3filter.RegisterBodyDecoder(mt, openapi3filter.FileBodyDecoder)
	}
	return legacy.NewRouter(doc)
})

func (v *validator) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	respBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	v.check(req, reqBody, resp, respBody)
	return resp, nil
}

func (v *validator) check(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	r, err := router()
	if err != nil {
		v.t.Error(err)
		return
	}
	probe := req.Clone(context.Background())
	probe.URL.Scheme, probe.URL.Host, probe.Host = "", "", ""
	probe.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := r.FindRoute(probe)
	if err != nil {
		v.fail("", req.Method+" "+req.URL.Path+": "+err.Error())
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route, Options: opts}
	id := route.Operation.OperationID
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		v.fail(id, "request: "+firstLine(err))
	}
	resOpts := *opts
	resOpts.ExcludeResponseBody = !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(respBody)), Options: &resOpts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		v.fail(id, "response "+strconv.Itoa(resp.StatusCode)+": "+firstLine(err))
	}
}

func (v *validator) fail(op, msg string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.problems = append(v.problems, op+": "+msg)
}

// done reports what the validator found.
func (v *validator) done() {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, p := range v.problems {
		v.t.Error("contract: " + p)
	}
}

func firstLine(err error) string {
	var keep []string
	for i, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); i == 0 || strings.HasPrefix(line, "Error at") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, " | ")
}

// startDemo builds the binary, starts `serve --demo` on a fresh data folder and returns its credentials.
func startDemo(t *testing.T) server.DemoCredentials {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "einvoice")
	if out, err := exec.Command("go", "build", "-o", bin, "einvoice").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(bin, "serve", "--demo", "--data", data, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "EINVOICE_CONFIG=")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "einvoice serving"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start:\n%s", stderr.String())
		}
	}
	creds, err := server.ReadDemoCredentials(data)
	if err != nil {
		t.Fatal(err)
	}
	return creds
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
