// Package openapi serves the OpenAPI 3.1 document of the library's HTTP API at /openapi.json.
// The document is the contract as built: a test checks that every route of the router is in
// it and every path in it is routed, and the HTTP tests validate their answers against it.
package openapi

import (
	_ "embed"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Document is the OpenAPI document, as served.
//
//go:embed openapi.json
var Document []byte

// Routes serves the document.
type Routes struct{}

// Routes implements httpapi.Module.
func (Routes) Routes(r chi.Router) {
	r.Get("/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(Document)
	})
}
