package server

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	stdhtml "html"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"einvoice/server/openapi"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// The OpenAPI document (server/openapi/openapi.yaml) is held to the service here: it is valid, it
// documents every route and routes nothing that is not, and it lists the code registry. Every API
// test's request and answer is checked against it by checkContract (contract_test.go).

var updateOpenAPICodes = flag.Bool("update-openapi-codes", false, "rewrite the x-codes list of server/openapi/openapi.yaml from the registry")

const openAPIPath = "openapi/openapi.yaml"

// notAPIRoutes are the routes the document leaves out: they are not the integrators' API.
var notAPIRoutes = []string{
	"GET /healthz", "GET /metrics", // operations: docs/operations.md
	"GET /public/documents/:id/:file", "GET /public/emails/:token", // links the service hands out in webhooks and e-mails
	"POST /as2",                                                                                            // EDI partners' AS2 messages and MDNs
	"GET /api/v1/openapi.json", "GET /api/v1/openapi.yaml", "GET /api/docs", "GET /api/docs/reference.css", // the document itself
}

// notAPIPrefixes are route prefixes of other front ends (the portal adds its own routes).
var notAPIPrefixes = []string{"/portal"}

// incumbentOperations are the operation ids of the contract and their tags, which clients generated
// from the incumbent's document call by name.
var incumbentOperations = map[string]string{
	"postOauth2Token": "Autenticação", "postAuthentications": "Autenticação", "deleteAuthentications": "Autenticação",
	"postDocumentUBL": "Documentos", "postDocument": "Documentos", "getDocuments": "Documentos", "getDocument": "Documentos",
	"postDocuments": "Documentos", "postDocumentsAccepted": "Documentos", "getDocumentHistory": "Documentos",
	"getStatesReport": "Histórico de estados", "postStatesReportRead": "Histórico de estados",
	"getProcessStates": "Estados de processamento de documentos", "postDocumentsProcessState": "Estados de processamento de documentos",
	"postExternalConnections": "Ligações externas", "getExternalConnections": "Ligações externas", "getExternalConnection": "Ligações externas",
}

func loadContract(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatalf("the OpenAPI document does not load: %v", err)
	}
	return doc
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadContract(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	tags := map[string][]string{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if _, seen := tags[op.OperationID]; op.OperationID == "" || seen {
				t.Errorf("operation id %q missing or repeated", op.OperationID)
			}
			tags[op.OperationID] = op.Tags
			if len(op.Tags) != 1 || doc.Tags.Get(op.Tags[0]) == nil {
				t.Errorf("%s: tags %v, want one of the document's", op.OperationID, op.Tags)
			}
		}
	}
	for id, tag := range incumbentOperations {
		if !slices.Equal(tags[id], []string{tag}) {
			t.Errorf("operation %s: tags %v, want [%s]", id, tags[id], tag)
		}
	}
	for _, hook := range []string{"documentReceivedWebhook", "webhookDocumentState", "webhookTest"} {
		if item := doc.Webhooks[hook]; item == nil || item.Post == nil || item.Post.OperationID != hook || !slices.Equal(item.Post.Tags, []string{"Webhooks"}) {
			t.Errorf("webhook %s is missing or not tagged Webhooks", hook)
		}
	}
}

// echoPathToOpenAPI writes an Echo route's path (/apps/documents/:id) as the document does
// (/apps/documents/{id}).
var echoParam = regexp.MustCompile(`:([A-Za-z_]+)`)

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc := loadContract(t)
	env := newTestEnv(t)
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	routed := map[string]bool{}
	for _, r := range env.srv.Echo().Routes() {
		key := r.Method + " " + r.Path
		if slices.Contains(notAPIRoutes, key) || slices.ContainsFunc(notAPIPrefixes, func(p string) bool { return strings.HasPrefix(r.Path, p) }) {
			continue
		}
		if r.Method == "echo_route_not_found" || r.Method == "echo_route_any" {
			continue
		}
		rest, ok := strings.CutPrefix(r.Path, "/api/v1/pt")
		if !ok {
			if rest, ok = strings.CutPrefix(r.Path, "/api/v1/en"); !ok {
				t.Errorf("route %s is neither the API's nor listed in notAPIRoutes", key)
				continue
			}
		}
		key = r.Method + " " + echoParam.ReplaceAllString(rest, "{$1}")
		routed[key] = true
		if !documented[key] {
			t.Errorf("route %s is not in the OpenAPI document", key)
		}
	}
	for key := range documented {
		if !routed[key] {
			t.Errorf("the OpenAPI document has %s, which no route answers", key)
		}
	}
	for _, r := range notAPIRoutes {
		method, path, _ := strings.Cut(r, " ")
		if !slices.ContainsFunc(env.srv.Echo().Routes(), func(er *echo.Route) bool { return er.Method == method && er.Path == path }) {
			t.Errorf("notAPIRoutes lists %s, which no longer exists", r)
		}
	}
}

// openAPICodes writes the registry as the document's x-codes list.
func openAPICodes() string {
	var b strings.Builder
	b.WriteString("x-codes:\n  # written by go test ./server -run TestOpenAPIListsEveryCode -update-openapi-codes\n")
	for _, c := range Codes() {
		fmt.Fprintf(&b, "  - {code: %s, status: %d, pt: %s, en: %s}\n", c.ID, c.Status, strconv.Quote(c.Msg("pt")), strconv.Quote(c.Msg("en")))
	}
	return b.String()
}

func TestOpenAPIListsEveryCode(t *testing.T) {
	src, err := os.ReadFile(openAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	head, _, found := strings.Cut(string(src), "\nx-codes:\n")
	if !found {
		t.Fatal("the OpenAPI document has no top-level x-codes list (it must be last)")
	}
	want := head + "\n" + openAPICodes()
	if *updateOpenAPICodes {
		if err := os.WriteFile(openAPIPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(src) != want {
		t.Error("the x-codes of server/openapi/openapi.yaml differ from the registry; run go test ./server -run TestOpenAPIListsEveryCode -update-openapi-codes")
	}
	doc := loadContract(t)
	listed := map[string]int{}
	for _, c := range openapi.Codes(doc) {
		listed[c.Code] = c.Status
	}
	for _, c := range Codes() {
		if listed[c.ID] != c.Status {
			t.Errorf("code %s: status %d in the document, %d in the registry", c.ID, listed[c.ID], c.Status)
		}
	}
	if len(listed) != len(Codes()) {
		t.Errorf("the document lists %d codes, the registry %d", len(listed), len(Codes()))
	}
	// Each response's codes are codes of that status, and every code the API answers is some
	// response's.
	named := map[string]bool{}
	check := func(where string, responses *openapi3.Responses) {
		for status, r := range responses.Map() {
			for _, code := range openapi.ResponseCodes(r.Value) {
				named[code] = true
				c, ok := registry[code]
				if !ok || strconv.Itoa(c.Status) != status {
					t.Errorf("%s: response %s names code %s (registry: %v)", where, status, code, c)
				}
			}
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			check(method+" "+path, op.Responses)
		}
	}
	for _, c := range Codes() {
		if !named[c.ID] && !slices.Contains(codesOutsideOperations, c.ID) {
			t.Errorf("code %s is in no response of the document (nor in codesOutsideOperations)", c.ID)
		}
	}
}

// codesOutsideOperations are codes no documented operation answers: a wrong method on any path, and
// the codes of the portal's, the support console's and the admin commands' own operations.
var codesOutsideOperations = []string{
	"e331",                                 // any path, with a method it does not take
	"e360", "e361", "e362", "e400", "e401", // support: entities, seals, the console
	"e370", "e371", "e372", "e373", // portal users and sign-in
	"e380", "e381", "s400", // portal documents and connections
	"e390", "e391", "e392", "e393", "e394", "e395", "e396", // entity settings
	"e430", "e431", "e432", // AS2 identities
	"e452", "e453", "e454", // EDI networks' inbound messages
}

func TestContractIsServed(t *testing.T) {
	env := newTestEnv(t)
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		env.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, rec.Code)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: policy %q", path, csp)
		}
		return rec
	}
	var served map[string]any
	if err := json.Unmarshal(get("/api/v1/openapi.json").Body.Bytes(), &served); err != nil || served["openapi"] != "3.1.0" {
		t.Fatalf("openapi.json: %v %v", err, served["openapi"])
	}
	loader := openapi3.NewLoader()
	for _, path := range []string{"/api/v1/openapi.json", "/api/v1/openapi.yaml"} {
		doc, err := loader.LoadFromData(get(path).Body.Bytes())
		if err != nil {
			t.Fatalf("%s does not load: %v", path, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Errorf("%s is not valid: %v", path, err)
		}
		if len(doc.Webhooks) != 3 || doc.Paths.Len() != loadContract(t).Paths.Len() {
			t.Errorf("%s lost paths or webhooks", path)
		}
	}
	page := get("/api/docs")
	if ct := page.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("/api/docs is %s", ct)
	}
	html := page.Body.String()
	text := stdhtml.UnescapeString(html)
	if strings.Contains(html, "<script") || strings.Contains(html, "style=") || strings.Contains(html, "<style") {
		t.Error("the reference page has inline script or style")
	}
	if m := regexp.MustCompile(`(?:src|href)="(?:https?:)?//`).FindString(html); m != "" {
		t.Errorf("the reference page loads something from outside: %s", m)
	}
	doc := loadContract(t)
	var ids []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ids = append(ids, op.OperationID)
		}
	}
	ids = append(ids, "documentReceivedWebhook", "webhookDocumentState", "webhookTest")
	sort.Strings(ids)
	for _, id := range ids {
		if !strings.Contains(html, `id="`+id+`"`) {
			t.Errorf("the reference page has no section for %s", id)
		}
	}
	for _, want := range []string{`id="code-e069"`, "lines[][taxes][][tax_percent]", `^externalEntities\[\d+\]\[external_entity_nif\]$`, "document_type"} {
		if !strings.Contains(text, want) {
			t.Errorf("the reference page lacks %s", want)
		}
	}
	if css := get("/api/docs/reference.css"); !strings.HasPrefix(css.Header().Get("Content-Type"), "text/css") {
		t.Errorf("the stylesheet is %s", css.Header().Get("Content-Type"))
	}
}
