package app_test

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/openapi"
)

// The OpenAPI document and the router agree: every route the service serves is documented, and
// every documented operation is served. Routes are compared as method and chi pattern, which
// is written like an OpenAPI path ("/books/{bookId}").
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	routed := servedRoutes(t)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	require.NoError(t, err)

	documented := make(map[string]bool)
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	require.NotEmpty(t, documented)

	for _, route := range webAppRoutes {
		if !routed[route] {
			t.Errorf("%s, a route of the web app, is not served with WebUI on", route)
		}
	}
	for _, route := range slices.Sorted(maps.Keys(routed)) {
		if slices.Contains(webAppRoutes, route) {
			continue
		}
		if !documented[route] {
			t.Errorf("%s is routed but not in the OpenAPI document (internal/openapi/openapi.json)", route)
		}
	}
	for _, op := range slices.Sorted(maps.Keys(documented)) {
		method, path, _ := strings.Cut(op, " ")
		// HEAD is served wherever GET is, by middleware rather than by routes of its own.
		served := routed[op] || method == http.MethodHead && routed[http.MethodGet+" "+path]
		if !served {
			t.Errorf("%s is in the OpenAPI document but the router does not serve it", op)
		}
	}
}

// webAppRoutes are the routes of the web app (package web), served unless WEB_UI=false: the
// page and its files, not operations of the API, so the OpenAPI document leaves them out.
var webAppRoutes = []string{"GET /", "GET /ui/*"}

// servedRoutes returns the routes of the real service's router, as "METHOD /pattern", with the
// web app on, as it is by default.
func servedRoutes(t *testing.T) map[string]bool {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.New(context.Background(), app.Config{HTTPAddr: "127.0.0.1:0", WebUI: true}, logger)
	require.NoError(t, err, "app.New")
	t.Cleanup(func() {
		// Run with a context that has already ended starts and at once shuts down in order,
		// which closes the listener that New opened.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.NoError(t, a.Run(ctx))
	})

	routes, ok := a.Handler().(chi.Routes)
	require.True(t, ok, "app.Handler() is a %T, not a chi router whose routes can be listed", a.Handler())
	routed := make(map[string]bool)
	err = chi.Walk(routes, func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routed[method+" "+pattern] = true
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, routed)
	return routed
}
