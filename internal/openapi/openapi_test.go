package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/openapi"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	require.NoError(t, err, "the document loads")
	return doc
}

// The document is a valid OpenAPI 3.1 document: its schemas, examples and references included.
func TestDocumentIsValid(t *testing.T) {
	t.Parallel()
	doc := load(t)
	require.True(t, doc.IsOpenAPI31OrLater(), "OpenAPI 3.1, whose schemas are JSON Schema 2020-12")
	require.NoError(t, doc.Validate(context.Background(),
		openapi3.EnableSchemaPatternValidation(),
		openapi3.EnableSchemaFormatValidation(),
		openapi3.EnableExamplesValidation(),
	))
}

// The contract's problem codes, each with its status (see docs/api.md, and 405).
var codes = map[string]int{
	"InvalidRequest": 400, "IdempotencyKeyMissing": 400, "Unauthorized": 401, "Forbidden": 403, "NotFound": 404,
	"MethodNotAllowed": 405, "BookAlreadyExists": 409, "BookAlreadyLent": 409, "LoanMismatch": 409,
	"NothingToPay": 409, "AccountNotSettled": 409, "NotLeaseHolder": 409, "ConcurrencyConflict": 409, "PayloadTooLarge": 413,
	"UnsupportedMediaType": 415, "IdempotencyKeyReused": 422, "NotReplayable": 422,
	"NotCaughtUp": 503, "Unavailable": 503, "Internal": 500, "TooManyRequests": 429, "Gone": 410,
	"LoanNotCurrent": 409, "RenewalLimitReached": 409, "BookOnHold": 409, "BookAvailable": 409, "HoldsWaiting": 409,
	"AlreadyHeld": 409, "HoldQueueFull": 409, "LoanLimitReached": 409, "MemberBlocked": 409, "TooManyCheckouts": 409,
	"TitleAlreadyExists": 409, "BarcodeTaken": 409, "TitleAvailable": 409, "CardTaken": 409,
	"PINInvalid": 403, "PINLocked": 423, "PreconditionRequired": 428, "PreconditionFailed": 412,
	"NotLendable": 409, "HoldsNotAllowed": 409, "BookMissing": 409,
}

// Every problem code is in the document, and every problem response of an operation is one
// of the shared problem responses, whose codes all have the response's status.
func TestProblemResponses(t *testing.T) {
	t.Parallel()
	doc := load(t)
	var enum []string
	for _, v := range doc.Components.Schemas["ProblemCode"].Value.Enum {
		enum = append(enum, v.(string))
	}
	want := make([]string, 0, len(codes))
	for code := range codes {
		want = append(want, code)
	}
	assert.ElementsMatch(t, want, enum, "ProblemCode lists the contract's codes")

	for name, ref := range doc.Components.Responses {
		content := ref.Value.Content.Get("application/problem+json")
		if content == nil {
			continue
		}
		// Each problem response narrows the Problem schema to its status and codes.
		props := content.Schema.Value.Properties
		require.Contains(t, props, "status", name)
		require.Contains(t, props, "code", name)
		status := int(props["status"].Value.Const.(float64))
		require.NotEmpty(t, props["code"].Value.Enum, name)
		for _, code := range props["code"].Value.Enum {
			assert.Equal(t, codes[code.(string)], status, "%s: %s", name, code)
		}
		assert.NotNil(t, ref.Value.Headers["X-Request-Id"], "%s carries X-Request-Id", name)
		switch status {
		case http.StatusServiceUnavailable, http.StatusTooManyRequests:
			assert.NotNil(t, ref.Value.Headers["Retry-After"], name)
		case http.StatusUnauthorized:
			assert.NotNil(t, ref.Value.Headers["WWW-Authenticate"], name)
		case http.StatusMethodNotAllowed:
			assert.NotNil(t, ref.Value.Headers["Allow"], name)
		}
	}

	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, ref := range op.Responses.Map() {
				if strings.HasPrefix(status, "4") || strings.HasPrefix(status, "5") {
					assert.True(t, strings.HasPrefix(ref.Ref, "#/components/responses/"),
						"%s %s %s: a shared problem response", method, path, status)
				}
			}
			assert.NotNil(t, op.Responses.Status(http.StatusInternalServerError), "%s %s can fail", method, path)
			assert.NotNil(t, op.Responses.Status(http.StatusMethodNotAllowed), "%s %s: other methods are 405", method, path)
			assert.NotNil(t, op.Responses.Status(http.StatusTooManyRequests), "%s %s: every operation is limited", method, path)
			assert.Equal(t, readsToken(op), op.Responses.Status(http.StatusUnauthorized) != nil,
				"%s %s lists 401 exactly when it reads a token", method, path)
		}
	}
}

// Every request body refuses members it does not list, as the service does; but the payment
// provider's notifications, which the service reads as the provider writes them. Each lists
// the members it requires, but a merge patch (PATCH), whose every member may be left out.
func TestRequestBodiesAreClosed(t *testing.T) {
	t.Parallel()
	doc := load(t)
	bodies := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || path == "/webhooks/stripe" {
				continue
			}
			bodies++
			schema := op.RequestBody.Value.Content.Get("application/json").Schema.Value
			require.NotNil(t, schema.AdditionalProperties.Has, "%s %s", method, path)
			assert.False(t, *schema.AdditionalProperties.Has, "%s %s: additionalProperties false", method, path)
			if method == http.MethodPatch {
				patch := op.RequestBody.Value.Content.Get("application/merge-patch+json")
				require.NotNil(t, patch, "%s %s takes a JSON merge patch", method, path)
				assert.Same(t, schema, patch.Schema.Value, "%s %s reads application/json as a merge patch", method, path)
				continue
			}
			assert.NotEmpty(t, schema.Required, "%s %s", method, path)
		}
	}
	assert.Equal(t, 20, bodies, "the twenty commands have bodies")
}

// The document is served, as it is, at /openapi.json.
func TestServed(t *testing.T) {
	t.Parallel()
	r := chi.NewRouter()
	openapi.Routes{}.Routes(r)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	require.Equal(t, openapi.Document, rec.Body.Bytes())
	var v map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	require.Equal(t, "3.1.0", v["openapi"])
}
