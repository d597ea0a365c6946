package app_test

// Contract tests for what every route shares: 404 and 405 problems, the request id, and the
// health endpoints. (That a 500 never shows internal text needs a route that fails on purpose;
// it is tested in the httpapi package, not here.)

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
)

// An unknown path is a 404 NotFound problem, whatever the method.
func TestUnknownRouteIsNotFound(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		for _, c := range []struct{ method, path string }{
			{http.MethodGet, "/nope"},
			{http.MethodGet, "/books/dune/nope"},
			{http.MethodPost, "/accounts"},
			{http.MethodDelete, "/admin"},
			{http.MethodGet, "/accounts/alice/fines/extra"},
		} {
			t.Run(c.method+" "+c.path, func(t *testing.T) {
				requireProblem(t, a.Send(t, c.method, c.path, nil), http.StatusNotFound, "NotFound")
			})
		}
	})
}

// A known path with a method it does not have is 405 MethodNotAllowed, with an Allow header
// listing the methods it has.
func TestWrongMethodIsMethodNotAllowed(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		for _, c := range []struct {
			method, path string
			allow        []string
		}{
			{http.MethodDelete, "/books/dune", []string{"GET"}},
			{http.MethodPut, "/books/dune", []string{"GET"}},
			{http.MethodGet, "/books/dune/loans", []string{"POST"}},
			{http.MethodDelete, "/books/dune/returns", []string{"POST"}},
			{http.MethodPatch, "/accounts/alice", []string{"GET", "PUT"}},
			{http.MethodPost, "/accounts/alice", []string{"GET", "PUT"}},
			{http.MethodGet, "/accounts/alice/payments", []string{"POST"}},
			{http.MethodPost, "/healthz", []string{"GET"}},
		} {
			t.Run(c.method+" "+c.path, func(t *testing.T) {
				r := a.Send(t, c.method, c.path, nil)
				requireProblem(t, r, http.StatusMethodNotAllowed, "MethodNotAllowed")
				var allow []string
				for _, v := range r.Header.Values("Allow") {
					for m := range strings.SplitSeq(v, ",") {
						allow = append(allow, strings.TrimSpace(m))
					}
				}
				assert.ElementsMatch(t, c.allow, allow)
			})
		}
	})
}

// Every answer carries X-Request-Id. A client's valid id is kept and is the problem's
// instance; an id that is not a valid identifier is replaced by one the service makes.
func TestRequestID(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		t.Run("kept", func(t *testing.T) {
			r := a.Send(t, http.MethodGet, "/books/dune", nil, "X-Request-Id", "client-req-1")
			p := requireProblem(t, r, http.StatusNotFound, "NotFound")
			assert.Equal(t, "client-req-1", p.Instance)
		})
		t.Run("replaced when invalid", func(t *testing.T) {
			r := a.Send(t, http.MethodGet, "/books/dune", nil, "X-Request-Id", "bad id; DROP TABLE events")
			p := requireProblem(t, r, http.StatusNotFound, "NotFound")
			assert.NotContains(t, p.Instance, " ")
			assert.NotEqual(t, "bad id; DROP TABLE events", p.Instance)
		})
		t.Run("on success too", func(t *testing.T) {
			r := a.Get(t, "/healthz")
			require.Equal(t, http.StatusOK, r.Status)
			assert.NotEmpty(t, r.Header.Get("X-Request-Id"))
		})
	})
}

// /healthz answers 200 while the process serves; /readyz answers 200 when the store is
// reachable (with PostgreSQL: the database answers).
func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		var health, ready struct{ Status string }
		requireJSON(t, a.Get(t, "/healthz"), &health)
		assert.Equal(t, "ok", health.Status)
		requireJSON(t, a.Get(t, "/readyz"), &ready)
		assert.Equal(t, "ready", ready.Status)
	})
}

// Identifiers may hold "@", ":" and "+". A client that percent-encodes a path segment (as
// JavaScript's encodeURIComponent does: "alice@example.com" becomes "alice%40example.com")
// names the same book or member as one that sends the characters as they are.
func TestPercentEncodedPathIDs(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		const id = "isbn:978-0441013593+alice@library" // not like an email address: those are refused for new accounts
		addBook(t, a, id)
		r := a.Call(t, http.MethodPut, "/accounts/"+id, obj{"name": "Alice"})
		requireResult(t, r, http.StatusCreated, "account-"+id)
		// requireID checks that r is 200 with the id in its member named member.
		requireID := func(t *testing.T, r response, member string) {
			t.Helper()
			require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
			var m map[string]any
			require.NoError(t, json.Unmarshal(r.Body, &m))
			assert.Equal(t, id, m[member])
		}
		t.Run("as they are", func(t *testing.T) {
			requireID(t, a.Get(t, "/books/"+id), "id")
			requireID(t, a.Get(t, "/accounts/"+id), "memberId")
		})
		t.Run("percent-encoded", func(t *testing.T) {
			// chi routes on the raw path when Go keeps one, so the parameter arrives encoded
			// and must be decoded before it is checked.
			const encoded = "isbn%3A978-0441013593%2Balice%40library"
			requireID(t, a.Get(t, "/books/"+encoded), "id")
			requireID(t, a.Get(t, "/accounts/"+encoded), "memberId")
		})
	})
}
