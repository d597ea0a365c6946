package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type observed struct {
	method, route string
	status        int
}

// Observe is told of each request with the route pattern that matched, never the path, so that
// the ids in paths can't become metric labels; a path that matches no route has no pattern.
func TestObserveGetsTheRoutePattern(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		seen []observed
	)
	api := New(Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Rules:  testRoutes,
		Observe: func(method, route string, status int, elapsed time.Duration) {
			require.GreaterOrEqual(t, elapsed, time.Duration(0))
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, observed{method, route, status})
		},
	}, testModule{})

	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/ids/alice"},
		{http.MethodGet, "/ids/-bad"},
		{http.MethodGet, "/coded/NotFound"},
		{http.MethodGet, "/panic"},
		{http.MethodGet, "/no/such/path"},
		{http.MethodDelete, "/ids/alice"},
		{http.MethodGet, "/healthz"},
	} {
		api.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(req.method, req.path, nil))
	}
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []observed{
		{http.MethodGet, "/ids/{id}", http.StatusOK},
		{http.MethodGet, "/ids/{id}", http.StatusBadRequest},
		{http.MethodGet, "/coded/{code}", http.StatusNotFound},
		{http.MethodGet, "/panic", http.StatusInternalServerError},
		{http.MethodGet, "", http.StatusNotFound},
		{http.MethodDelete, "", http.StatusMethodNotAllowed},
		{http.MethodGet, "/healthz", http.StatusOK},
	}, seen)
}
