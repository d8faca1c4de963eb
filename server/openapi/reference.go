package openapi

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// The reference page: the document as one server-rendered HTML page (operations by tag, their
// parameters, request fields, responses with their codes, the schemas and the code registry), so that
// it reads offline and needs no script.

//go:embed reference.html
var referenceTemplate string

// Stylesheet is the reference page's CSS, served beside it (the page's policy allows no inline style).
//
//go:embed reference.css
var Stylesheet []byte

type referenceView struct {
	Title, Version, Description string
	Tags                        []tagView
	Webhooks                    []operationView
	Schemas                     []schemaView
	Codes                       []CodeEntry
}

type tagView struct {
	Anchor, Name, Description string
	Operations                []operationView
}

type operationView struct {
	ID, Method, Path, Summary, Description string
	Public                                 bool // no credentials needed
	Parameters                             []fieldView
	Bodies                                 []bodyView
	Responses                              []responseView
}

type bodyView struct {
	MediaType string
	Schema    string // the named schema, when the body is one
	Fields    []fieldView
}

type responseView struct {
	Status, Description string
	Codes               []string
	Bodies              []bodyView
}

type fieldView struct {
	Name, In, Type, Description string
	SchemaLink                  string // the named schema the field is, when it is one
	Required                    bool
}

type schemaView struct {
	Name, Description string
	Fields            []fieldView
}

// CodeEntry is one code of the document's registry (the top-level x-codes).
type CodeEntry struct {
	Code   string `json:"code"`
	Status int    `json:"status"`
	PT     string `json:"pt"`
	EN     string `json:"en"`
}

// Codes is the document's list of codes, in its order.
func Codes(doc *openapi3.T) []CodeEntry {
	raw, _ := doc.Extensions["x-codes"].([]any)
	out := make([]CodeEntry, 0, len(raw))
	for _, item := range raw {
		m, _ := item.(map[string]any)
		e := CodeEntry{}
		e.Code, _ = m["code"].(string)
		e.PT, _ = m["pt"].(string)
		e.EN, _ = m["en"].(string)
		switch n := m["status"].(type) {
		case float64:
			e.Status = int(n)
		case int:
			e.Status = n
		}
		out = append(out, e)
	}
	return out
}

// ResponseCodes are the codes a response names in its x-codes.
func ResponseCodes(r *openapi3.Response) []string {
	raw, _ := r.Extensions["x-codes"].([]any)
	out := make([]string, 0, len(raw))
	for _, c := range raw {
		if s, ok := c.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Reference is the reference page, rendered once.
var Reference = sync.OnceValues(func() ([]byte, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	t, err := template.New("reference").Funcs(template.FuncMap{"prose": prose}).Parse(referenceTemplate)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, buildReference(doc)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
})

func buildReference(doc *openapi3.T) referenceView {
	v := referenceView{Title: doc.Info.Title, Version: doc.Info.Version, Description: doc.Info.Description, Codes: Codes(doc)}
	byTag := map[string]*tagView{}
	for _, t := range doc.Tags {
		v.Tags = append(v.Tags, tagView{Anchor: "tag-" + strings.ReplaceAll(t.Name, " ", "-"), Name: t.Name, Description: t.Description})
	}
	for i := range v.Tags {
		byTag[v.Tags[i].Name] = &v.Tags[i]
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range methodOrder {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			ov := viewOperation(doc, method, path, item, op)
			for _, tag := range op.Tags {
				if t := byTag[tag]; t != nil {
					t.Operations = append(t.Operations, ov)
				}
			}
		}
	}
	v.Tags = slices.DeleteFunc(v.Tags, func(t tagView) bool { return len(t.Operations) == 0 }) // the webhooks' tag: they have their own part
	for _, t := range v.Tags {
		sort.SliceStable(t.Operations, func(i, j int) bool { return t.Operations[i].Path < t.Operations[j].Path })
	}
	names := make([]string, 0, len(doc.Webhooks))
	for name := range doc.Webhooks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		item := doc.Webhooks[name]
		for _, method := range methodOrder {
			if op := item.GetOperation(method); op != nil {
				v.Webhooks = append(v.Webhooks, viewOperation(doc, method, name, item, op))
			}
		}
	}
	schemaNames := make([]string, 0, len(doc.Components.Schemas))
	for name := range doc.Components.Schemas {
		schemaNames = append(schemaNames, name)
	}
	sort.Strings(schemaNames)
	for _, name := range schemaNames {
		s := doc.Components.Schemas[name].Value
		sv := schemaView{Name: name, Description: s.Description}
		sv.Fields = fieldsOf(doc.Components.Schemas, s, "", 0, false)
		if len(sv.Fields) == 0 {
			sv.Fields = []fieldView{{Name: "(value)", Type: typeOf(doc.Components.Schemas[name], false)}}
		}
		v.Schemas = append(v.Schemas, sv)
	}
	return v
}

var methodOrder = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

func viewOperation(doc *openapi3.T, method, path string, item *openapi3.PathItem, op *openapi3.Operation) operationView {
	ov := operationView{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary, Description: op.Description,
		Public: op.Security != nil && len(*op.Security) == 0}
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		pv := p.Value
		ov.Parameters = append(ov.Parameters, fieldView{Name: pv.Name, In: pv.In, Type: typeOf(pv.Schema, false),
			Description: pv.Description, Required: pv.Required})
	}
	if op.RequestBody != nil {
		ov.Bodies = bodiesOf(doc.Components.Schemas, op.RequestBody.Value.Content, true)
	}
	statuses := make([]string, 0, op.Responses.Len())
	for status := range op.Responses.Map() {
		statuses = append(statuses, status)
	}
	sort.Strings(statuses)
	for _, status := range statuses {
		r := op.Responses.Value(status).Value
		rv := responseView{Status: status, Codes: ResponseCodes(r), Bodies: bodiesOf(doc.Components.Schemas, r.Content, false)}
		if r.Description != nil {
			rv.Description = *r.Description
		}
		ov.Responses = append(ov.Responses, rv)
	}
	return ov
}

func bodiesOf(components openapi3.Schemas, content openapi3.Content, open bool) []bodyView {
	types := make([]string, 0, len(content))
	for mt := range content {
		types = append(types, mt)
	}
	sort.Strings(types)
	var out []bodyView
	for _, mt := range types {
		s := content[mt].Schema
		if s == nil {
			continue
		}
		bv := bodyView{MediaType: mt, Schema: schemaName(s), Fields: fieldsOf(components, s.Value, "", 0, open)}
		if len(bv.Fields) == 0 {
			bv.Fields = []fieldView{{Name: "(body)", Type: typeOf(s, false), Description: s.Value.Description}}
		}
		out = append(out, bv)
	}
	return out
}

// maxDepth bounds how deep fieldsOf writes nested fields that are not named schemas.
const maxDepth = 6

// fieldsOf lists an object's fields, nested ones in bracket notation (lines[][taxes][][tax_percent]).
// A field that is a named schema is opened only when open is set (request bodies list every field);
// otherwise its type links to the schema.
func fieldsOf(components openapi3.Schemas, s *openapi3.Schema, prefix string, depth int, open bool) []fieldView {
	if s == nil || depth > maxDepth {
		return nil
	}
	props, required := map[string]*openapi3.SchemaRef{}, map[string]bool{}
	collect := func(s *openapi3.Schema) {
		for name, p := range s.Properties {
			props[name] = p
		}
		for _, r := range s.Required {
			required[r] = true
		}
	}
	collect(s)
	for _, part := range s.AllOf {
		collect(part.Value)
		for _, inner := range part.Value.AllOf {
			collect(inner.Value)
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []fieldView
	for _, name := range names {
		p := props[name]
		full := name
		if prefix != "" {
			full = prefix + "[" + name + "]"
		}
		fv := fieldView{Name: full, Type: typeOf(p, false), Description: p.Value.Description, Required: required[name]}
		if named := schemaName(p); named != "" {
			fv.Type, fv.SchemaLink = named, named
			if fv.Description == components[named].Value.Description {
				fv.Description = "" // the schema's own, not the field's
			}
		}
		out = append(out, fv)
		if schemaName(p) != "" && !open {
			continue
		}
		if inner := p.Value; inner.Type.Is("array") && inner.Items != nil && (open || schemaName(inner.Items) == "") {
			out = append(out, fieldsOf(components, inner.Items.Value, full+"[]", depth+1, open)...)
		} else if len(inner.Properties) > 0 || len(inner.AllOf) > 0 {
			out = append(out, fieldsOf(components, inner, full, depth+1, open)...)
		}
	}
	patterns := make([]string, 0, len(s.PatternProperties))
	for pattern := range s.PatternProperties {
		patterns = append(patterns, pattern)
	}
	sort.Strings(patterns)
	for _, pattern := range patterns {
		p := s.PatternProperties[pattern]
		out = append(out, fieldView{Name: pattern, Type: typeOf(p, false), Description: p.Value.Description})
	}
	return out
}

// prose writes a description's `quoted` words as code, escaping everything.
func prose(s string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String())
}

// schemaName is the component a schema refers to, or "".
func schemaName(s *openapi3.SchemaRef) string {
	if s == nil {
		return ""
	}
	name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/")
	if !ok {
		return ""
	}
	return name
}

// typeOf writes a schema's type for people: "string", "array of Attachment", "Party or null".
func typeOf(s *openapi3.SchemaRef, inner bool) string {
	if s == nil {
		return "any"
	}
	if name := schemaName(s); name != "" && inner {
		return name
	}
	v := s.Value
	var alts []string
	for _, one := range append(slices.Clone(v.OneOf), v.AnyOf...) {
		alts = append(alts, typeOf(one, true))
	}
	if len(alts) > 0 {
		return strings.Join(alts, " or ")
	}
	var parts []string
	for _, t := range v.Type.Slice() {
		switch {
		case t == "array" && v.Items != nil:
			parts = append(parts, "array of "+typeOf(v.Items, true))
		case t == "string" && v.Format != "":
			parts = append(parts, "string ("+v.Format+")")
		default:
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 && len(v.AllOf) > 0 {
		parts = append(parts, "object")
	}
	if len(v.Enum) > 0 { // the values say the type
		vals := make([]string, len(v.Enum))
		for i, e := range v.Enum {
			vals[i] = valueText(e)
		}
		parts = []string{"one of " + strings.Join(vals, ", ")}
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, " or ")
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return "?"
}
