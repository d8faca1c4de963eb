// Package openapi holds the API's contract: the OpenAPI 3.1 document, written by hand in openapi.yaml
// and embedded, and the reference page built from it. The server serves both; the server's tests hold
// the document to the routes, the code registry and every answer its API tests see.
package openapi

import (
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config client/oapi-codegen.yaml openapi.yaml

// source is the document as written.
//
//go:embed openapi.yaml
var source []byte

// YAML is the document as written.
func YAML() []byte { return source }

// Load parses the document once; every caller shares the result and must not change it.
var Load = sync.OnceValues(func() (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(source)
})

// JSON is the document in JSON.
var JSON = sync.OnceValues(func() ([]byte, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
})
