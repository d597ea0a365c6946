package apitest

// Every answer the contract tests get is checked against the OpenAPI document the service
// serves: its status must be documented for the operation, its documented headers must be there
// and match their schemas, and its body must have a documented media type and match its schema.
// Answers outside the documented operations are checked too: a path the document lacks must
// answer the NotFound problem, a method a documented path lacks the MethodNotAllowed problem.
//
// kin-openapi checks the status and the headers. It would check bodies too, but it compiles a
// schema again for every value it checks, which made the suite more than twice as slow; so
// bodies are checked with the same JSON Schema 2020-12 validator that it uses, with each
// schema compiled once.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"library/internal/openapi"
)

// contract is the OpenAPI document and what answers are checked with.
type contract struct {
	doc    *openapi3.T
	router routers.Router
	// notFound and methodNotAllowed stand for the operations that answer requests the
	// document has no operation for.
	notFound, methodNotAllowed *openapi3.Operation
	// bodies holds the compiled schema of every documented response body.
	bodies map[*openapi3.MediaType]*jsonschema.Schema
}

// loadContract loads the document once per test binary.
var loadContract = sync.OnceValues(func() (*contract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapi.Document)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the OpenAPI document: %w", err)
	}
	answering := func(status int, name string) (*openapi3.Operation, error) {
		ref := doc.Components.Responses[name]
		if ref == nil {
			return nil, fmt.Errorf("the OpenAPI document has no response %s", name)
		}
		op := openapi3.NewOperation()
		op.Responses = openapi3.NewResponses(openapi3.WithStatus(status, ref))
		return op, nil
	}
	bodies, err := compileBodies(doc)
	if err != nil {
		return nil, err
	}
	c := &contract{doc: doc, router: router, bodies: bodies}
	if c.notFound, err = answering(http.StatusNotFound, "NotFound"); err != nil {
		return nil, err
	}
	if c.methodNotAllowed, err = answering(http.StatusMethodNotAllowed, "MethodNotAllowed"); err != nil {
		return nil, err
	}
	return c, nil
})

// checkContract returns an error naming what is wrong when an answer to req does not match the
// OpenAPI document.
func checkContract(req *http.Request, status int, header http.Header, body []byte) error {
	c, err := loadContract()
	if err != nil {
		return err
	}
	if err := c.check(req, status, header, body); err != nil {
		return fmt.Errorf("%s %s answered %d, which the OpenAPI document does not allow: %w\nbody: %.500s",
			req.Method, req.URL.RequestURI(), status, err, body)
	}
	return nil
}

func (c *contract) check(req *http.Request, status int, header http.Header, body []byte) error {
	if req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != "" {
		// A CORS preflight is answered before routing, on any path: the CORS protocol, not an
		// operation of the API (the document's description says so).
		return nil
	}
	options := &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: true}
	if req.Method == http.MethodHead {
		// HEAD answers as GET does, without the body.
		req = req.Clone(req.Context())
		req.Method = http.MethodGet
		body = nil
	}
	route, params, err := c.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		route = &routers.Route{Spec: c.doc, Path: req.URL.Path, Method: req.Method, Operation: c.notFound}
	case errors.Is(err, routers.ErrMethodNotAllowed):
		route = &routers.Route{Spec: c.doc, Path: req.URL.Path, Method: req.Method, Operation: c.methodNotAllowed}
	case err != nil:
		return err
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                options,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return err
	}
	content := route.Operation.Responses.Status(status).Value.Content
	if len(content) == 0 || body == nil {
		return nil
	}
	contentType := documentedMediaType(content, header.Get("Content-Type"))
	mediaType := content.Get(contentType)
	if mediaType == nil {
		return fmt.Errorf("the Content-Type %q is not documented for this answer", header.Get("Content-Type"))
	}
	schema := c.bodies[mediaType]
	if schema == nil {
		return nil
	}
	value, err := decodeBody(contentType, body)
	if err != nil {
		return err
	}
	if err := schema.Validate(value); err != nil {
		return fmt.Errorf("the body does not match its schema: %w", err)
	}
	return nil
}

// decodeBody decodes a response body for its schema: JSON media types as JSON, text as a
// string.
func decodeBody(contentType string, body []byte) (any, error) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the Content-Type %q cannot be parsed: %w", contentType, err)
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		value, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("the body is not JSON: %w", err)
		}
		return value, nil
	case strings.HasPrefix(mediaType, "text/"):
		return string(body), nil
	default:
		return nil, fmt.Errorf("no decoder for a %s body", mediaType)
	}
}

// compileBodies compiles the schema of every documented response body, of the operations and
// of the shared responses, within the whole document so that its references resolve.
func compileBodies(doc *openapi3.T) (map[*openapi3.MediaType]*jsonschema.Schema, error) {
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapi.Document))
	if err != nil {
		return nil, err
	}
	const docURL = "https://library.invalid/openapi.json"
	compiler := jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	compiler.AssertFormat()
	if err := compiler.AddResource(docURL, raw); err != nil {
		return nil, err
	}
	bodies := make(map[*openapi3.MediaType]*jsonschema.Schema)
	compile := func(pointer string, response *openapi3.ResponseRef) error {
		if response.Ref != "" {
			pointer = strings.TrimPrefix(response.Ref, "#")
		}
		for name, mediaType := range response.Value.Content {
			if mediaType.Schema == nil || bodies[mediaType] != nil {
				continue
			}
			schema, err := compiler.Compile(docURL + "#" + pointer + "/content/" + pointerToken(name) + "/schema")
			if err != nil {
				return fmt.Errorf("compile the schema of a response body: %w", err)
			}
			bodies[mediaType] = schema
		}
		return nil
	}
	for name, response := range doc.Components.Responses {
		if err := compile("/components/responses/"+pointerToken(name), response); err != nil {
			return nil, err
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, response := range op.Responses.Map() {
				pointer := "/paths/" + pointerToken(path) + "/" + strings.ToLower(method) + "/responses/" + status
				if err := compile(pointer, response); err != nil {
					return nil, err
				}
			}
		}
	}
	return bodies, nil
}

// pointerToken escapes a JSON pointer token for a URI fragment.
func pointerToken(s string) string {
	return url.PathEscape(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
}

// documentedMediaType returns the media type of content that got is, when got is a documented
// one with more parameters ("text/plain; version=0.0.4; charset=utf-8" for a documented
// "text/plain; version=0.0.4"), and got otherwise.
func documentedMediaType(content openapi3.Content, got string) string {
	if got == "" || content.Get(got) != nil {
		return got
	}
	gotType, gotParams, err := mime.ParseMediaType(got)
	if err != nil {
		return got
	}
	for key := range content {
		keyType, keyParams, err := mime.ParseMediaType(key)
		if err != nil || keyType != gotType {
			continue
		}
		matches := true
		for name, value := range keyParams {
			matches = matches && strings.EqualFold(gotParams[name], value)
		}
		if matches {
			return key
		}
	}
	return got
}
