package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"einvoice/server/openapi"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// contractRouter finds a request's operation in the document.
var contractRouter = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi.Load()
	if err != nil {
		return nil, err
	}
	for _, mt := range []string{"application/xml", "text/xml", "application/pdf"} {
		openapi3filter.RegisterBodyDecoder(mt, openapi3filter.FileBodyDecoder)
	}
	return legacy.NewRouter(doc)
})

// checkContract holds one API call of a test to the OpenAPI document: the answer must be one the
// document describes for the operation (status and body), and a request the service accepted must be
// one the document allows. testEnv.do calls it for every request, so every API test checks
// conformance as it goes.
func checkContract(t *testing.T, method, path string, header map[string]string, body string, rec *httptest.ResponseRecorder) {
	t.Helper()
	router, err := contractRouter()
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// The document's server is relative: routes are found by path whatever the Host (tests send others).
	req.URL.Scheme, req.URL.Host, req.Host = "", "", ""
	route, params, err := router.FindRoute(req)
	if err != nil {
		// An undocumented path or method: only the API's own refusals may answer it.
		if strings.HasPrefix(req.URL.Path, "/api/v1/") && rec.Code != http.StatusNotFound && rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("contract: %s %s is not in the OpenAPI document but answered %d", method, path, rec.Code)
		}
		return
	}
	ctx := context.Background()
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	var problems []string
	if rec.Code < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			problems = append(problems, "request: "+briefly(err))
		}
		problems = append(problems, undocumentedFormFields(route, header["Content-Type"], body)...)
	}
	resOpts := *opts
	if mt, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type")); mt != "application/json" {
		resOpts.ExcludeResponseBody = true // files: their bytes are the document's, not a schema's
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(),
		Body: io.NopCloser(bytes.NewReader(rec.Body.Bytes())), Options: &resOpts}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		problems = append(problems, "response "+strconv.Itoa(rec.Code)+": "+briefly(err))
	}
	if len(problems) == 0 {
		return
	}
	reportContract(t, route.Operation.OperationID, method+" "+path, problems)
}

// reportContract fails the test with the problems of one call of an operation.
func reportContract(t *testing.T, id, call string, problems []string) {
	t.Helper()
	t.Error("contract: " + call + " (" + id + "): " + strings.Join(problems, "\n"))
}

// webhooksChecked counts the webhook calls checked, by test.
var webhooksChecked sync.Map

const maxWebhookChecks = 20

// checkWebhookCall holds a webhook call the service made to the document's webhooks: its headers and its
// body (the event says which webhook it is).
func checkWebhookCall(t *testing.T, req *http.Request, body []byte) {
	t.Helper()
	// Validating a body compiles the schema again each time: a test's first calls are checked, not
	// every one of a test that sends ten thousand alike.
	n, _ := webhooksChecked.LoadOrStore(t, new(atomic.Int32))
	if n.(*atomic.Int32).Add(1) > maxWebhookChecks {
		return
	}
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var event struct {
		Event string `json:"event"`
	}
	json.Unmarshal(body, &event)
	name := map[string]string{"document.received": "documentReceivedWebhook", "document.state_changed": "webhookDocumentState",
		"webhook.test": "webhookTest"}[event.Event]
	hook := doc.Webhooks[name]
	if hook == nil {
		t.Errorf("contract: webhook event %q is not in the document", event.Event)
		return
	}
	var problems []string
	for _, p := range hook.Post.Parameters {
		if p.Value.In == "header" && p.Value.Required && req.Header.Get(p.Value.Name) == "" {
			problems = append(problems, "header "+p.Value.Name+" is missing")
		}
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		problems = append(problems, "body: "+err.Error())
	} else if err := hook.Post.RequestBody.Value.Content.Get("application/json").Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020()); err != nil {
		problems = append(problems, "body: "+briefly(err))
	}
	if len(problems) > 0 {
		reportContract(t, name, "webhook "+event.Event, problems)
	}
}

// briefly keeps the lines of a validation error that say where the mismatch is, without the schemas
// and values kin-openapi prints with them.
func briefly(err error) string {
	var keep []string
	for i, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); i == 0 || strings.HasPrefix(line, "Error at") || strings.HasPrefix(line, "Or Error at") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, " | ")
}

// undocumentedFormFields checks the field names of a form body (multipart or URL-encoded), which
// kin-openapi leaves unchecked: each must be a property of the body's schema or match one of its
// patternProperties (the bracket names: lines[0][taxes][0][tax_percent]).
func undocumentedFormFields(route *routers.Route, contentType, body string) []string {
	mt, params, _ := mime.ParseMediaType(contentType)
	rb := route.Operation.RequestBody
	if rb == nil || (mt != "multipart/form-data" && mt != "application/x-www-form-urlencoded") {
		return nil
	}
	media := rb.Value.Content.Get(mt)
	if media == nil || media.Schema == nil {
		return nil // ValidateRequest already refused the media type
	}
	var names []string
	if mt == "multipart/form-data" {
		r := multipart.NewReader(strings.NewReader(body), params["boundary"])
		for part, err := r.NextPart(); err == nil; part, err = r.NextPart() {
			names = append(names, part.FormName())
		}
	} else {
		values, _ := url.ParseQuery(body)
		for name := range values {
			names = append(names, name)
		}
	}
	schema := media.Schema.Value
	var problems []string
	for _, name := range names {
		if _, ok := schema.Properties[name]; ok {
			continue
		}
		if !slices.ContainsFunc(slices.Collect(maps.Keys(schema.PatternProperties)), func(p string) bool { return regexp.MustCompile(p).MatchString(name) }) {
			problems = append(problems, "request: form field "+strconv.Quote(name)+" is not in the document")
		}
	}
	return problems
}
