package processorhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/auth"
	"library/internal/eventstore"
	"library/internal/httpapi"
	"library/internal/processor/engine"
	"library/internal/testkit/drivertest"
)

const adminToken = "s3cret-admin-token"

// httpReplicas are two replicas' HTTP APIs on one shared memory "database": the first holds
// every lease, the second is a standby. The outbox parks the events of stream "book-3", the last
// two of the log (so the last batch is not clean, and the error still shows in the status).
type httpReplicas struct {
	env              memoryEnv
	holder, standby  http.Handler
	holderG          *engine.Group
	events           []eventstore.Event
	sagaH, outboxH   *drivertest.Recorder
	withoutAdminAuth http.Handler
}

func newHTTPReplicas(t *testing.T) httpReplicas {
	t.Helper()
	env := newMemoryEnv()
	r := httpReplicas{env: env, events: drivertest.AppendEvents(t, env.store, "book", 5)}
	r.sagaH = drivertest.NewRecorder(nil)
	r.outboxH = drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.StreamID == "book-3" {
			return errors.New("smtp: connection refused")
		}
		return nil
	})
	r.holderG = startGroup(t, env.config(), saga("fines", r.sagaH), outbox("emails", r.outboxH))
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return r.holderG.HoldsLease("fines") && r.holderG.HoldsLease("emails") && drivertest.CountParked(t, env.cps, "emails") == 2 &&
			drivertest.LoadPosition(t, env.cps, "fines").Checkpoint == r.events[4].Checkpoint() &&
			drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == r.events[4].Checkpoint() && nothingInFlight(t, r.holderG)
	}, "the holder has handled the log and parked book-3's events")
	standbyG := startGroup(t, env.config(), saga("fines", drivertest.NewRecorder(nil)), outbox("emails", drivertest.NewRecorder(nil)))

	opts := httpapi.Options{Logger: discardLogger(), Guard: auth.NewGuard(nil, adminToken)}
	r.holder = httpapi.New(opts, Routes{Group: r.holderG, Replica: "replica-a"})
	r.standby = httpapi.New(opts, Routes{Group: standbyG, Replica: "replica-b"})
	opts.Guard = auth.NewGuard(nil, "")
	r.withoutAdminAuth = httpapi.New(opts, Routes{Group: r.holderG, Replica: "replica-a"})
	return r
}

// nothingInFlight reports whether no processor of g is handling an event: the checkpoint of
// the last one moves a moment before its worker counts itself done.
func nothingInFlight(t *testing.T, g *engine.Group) bool {
	t.Helper()
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	for _, s := range statuses {
		if s.InFlight != 0 {
			return false
		}
	}
	return true
}

func serve(h http.Handler, method, path, authorization string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func decode(t *testing.T, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var body map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body), w.Body.String())
	return body
}

// requireProblem checks an error answer: its status, its code, and that it is a problem+json.
func requireProblem(t *testing.T, w *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	require.Equal(t, status, w.Code, w.Body.String())
	require.Equal(t, httpapi.ProblemContentType, w.Header().Get("Content-Type"))
	body := decode(t, w)
	require.Equal(t, code, body["code"])
	require.Equal(t, float64(status), body["status"])
}

func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	r := newHTTPReplicas(t)
	head := float64(r.events[4].Position)
	w := serve(r.holder, http.MethodGet, "/status", "") // no token needed
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	// The last of book-3's two events to be parked names itself; either may be last.
	got := strings.NewReplacer("position 4: failed", "position 5: failed").Replace(w.Body.String())
	require.JSONEq(t, `{"replica": "replica-a", "readHorizon": {"stalled": false}, "processors": [
		{"name": "fines", "kind": "saga", "holdsLease": true, "checkpoint": 5, "generation": 0, "head": 5, "lag": 0, "parked": 0, "deferred": 0, "inFlight": 0, "lastError": null},
		{"name": "emails", "kind": "outbox", "holdsLease": true, "checkpoint": 5, "generation": 0, "head": 5, "lag": 0, "parked": 2,
		 "deferred": 0, "inFlight": 0, "lastError": "position 5: failed (the logs say why)"}]}`, got)

	w = serve(r.standby, http.MethodGet, "/status", "")
	require.Equal(t, http.StatusOK, w.Code)
	body := decode(t, w)
	require.Equal(t, "replica-b", body["replica"])
	for _, p := range body["processors"].([]any) {
		p := p.(map[string]any)
		require.Equal(t, false, p["holdsLease"], "a standby says so")
		require.Equal(t, head, p["checkpoint"], "the shared checkpoint, seen from the standby")
		require.Nil(t, p["lastError"], "lastError is this replica's own")
	}
}

func TestHTTPAdminNeedsTheToken(t *testing.T) {
	t.Parallel()
	r := newHTTPReplicas(t)
	for _, tc := range []struct {
		why           string
		handler       http.Handler
		authorization string
	}{
		{"no token", r.holder, ""},
		{"wrong token", r.holder, "Bearer not-the-token"},
		{"token as another scheme", r.holder, "Basic " + adminToken},
		{"token without scheme", r.holder, adminToken},
		{"a prefix of the token", r.holder, "Bearer " + adminToken[:5]},
		{"the token and more", r.holder, "Bearer " + adminToken + "x"},
		{"the token and a NUL", r.holder, "Bearer " + adminToken + "\x00"},
		{"a token of the same length", r.holder, "Bearer " + strings.Repeat("x", len(adminToken))},
		{"the token with its last character changed", r.holder, "Bearer " + adminToken[:len(adminToken)-1] + "X"},
		{"the token in upper case", r.holder, "Bearer " + strings.ToUpper(adminToken)},
		{"the token twice", r.holder, "Bearer " + adminToken + adminToken},
		{"empty bearer", r.holder, "Bearer "},
		{"bearer without a space", r.holder, "Bearer" + adminToken},
		{"the scheme alone", r.holder, "Bearer"},
		{"token as the scheme", r.holder, adminToken + " " + adminToken},
		{"no ADMIN_TOKEN configured, empty bearer", r.withoutAdminAuth, "Bearer "},
		{"no ADMIN_TOKEN configured, any bearer", r.withoutAdminAuth, "Bearer " + adminToken},
	} {
		for _, path := range []string{"/admin/processors/fines/replay", "/admin/processors/emails/retry-parked",
			"/admin/processors/nope/replay", "/admin/processors/%20bad%20/replay"} {
			w := serve(tc.handler, http.MethodPost, path, tc.authorization)
			requireProblem(t, w, http.StatusUnauthorized, "Unauthorized") // before anything is learnt, even whether it exists
			require.Contains(t, w.Header().Get("WWW-Authenticate"), "Bearer", "%s: %s", tc.why, path)
		}
	}
	require.Equal(t, 5, r.sagaH.Count(), "nothing was replayed")
	require.Equal(t, 2, drivertest.CountParked(t, r.env.cps, "emails"), "nothing was requeued")
}

func TestHTTPAdminAnswers(t *testing.T) {
	t.Parallel()
	r := newHTTPReplicas(t)
	bearer := "Bearer " + adminToken

	requireProblem(t, serve(r.holder, http.MethodPost, "/admin/processors/nope/replay", bearer), http.StatusNotFound, "NotFound")
	requireProblem(t, serve(r.holder, http.MethodPost, "/admin/processors/nope/retry-parked", bearer), http.StatusNotFound, "NotFound")
	requireProblem(t, serve(r.standby, http.MethodPost, "/admin/processors/fines/replay", bearer), http.StatusConflict, "NotLeaseHolder")
	requireProblem(t, serve(r.standby, http.MethodPost, "/admin/processors/emails/retry-parked", bearer), http.StatusConflict, "NotLeaseHolder")
	requireProblem(t, serve(r.holder, http.MethodPost, "/admin/processors/emails/replay", bearer), http.StatusUnprocessableEntity, "NotReplayable")
	requireProblem(t, serve(r.holder, http.MethodGet, "/admin/processors/fines/replay", bearer), http.StatusMethodNotAllowed, "MethodNotAllowed")

	w := serve(r.holder, http.MethodPost, "/admin/processors/emails/retry-parked", "bearer "+adminToken) // the scheme is case-insensitive
	require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
	require.JSONEq(t, `{"requeued": 2}`, w.Body.String())
	drivertest.Eventually(t, 5*time.Second, func() bool { return r.outboxH.Attempts(r.events[4].Position) == 6 }, "the holder tries them again")

	w = serve(r.holder, http.MethodPost, "/admin/processors/fines/replay", bearer)
	require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
	require.JSONEq(t, `{"processor": "fines", "replay": "started"}`, w.Body.String())
	drivertest.Eventually(t, 5*time.Second, func() bool { return r.sagaH.Count() == 10 }, "the saga replays")
}
