package commandhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/httpapi"
)

type paid struct {
	Amount int64 `json:"amount"`
}

func (paid) EventType() string { return "PaymentReceived" }

// replayModule answers its command from a fixed first result, the way the aggregate does: the
// first request with a key runs, every later one with that key is the stored answer, Replayed.
type replayModule struct{ seen map[string]bool }

func (m replayModule) Routes(r chi.Router) {
	r.Post("/accounts/{memberId}/payments", Command("memberId", KeyRequired,
		func(_ context.Context, id string, body paid, o aggregate.Origin) (aggregate.Result, error) {
			result := aggregate.Result{StreamID: "account-" + id, Version: 3, Position: 41, Events: []aggregate.RecordedEvent{
				{Type: "PaymentReceived", Version: 3, Position: 41, RecordedAt: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC), Data: body},
			}}
			result.Replayed = m.seen[o.CommandID]
			m.seen[o.CommandID] = true
			return result, nil
		}))
	r.Post("/nothing", Command("", KeyOptional, func(context.Context, string, paid, aggregate.Origin) (aggregate.Result, error) {
		return aggregate.Result{StreamID: "book-dune", Version: 2, Position: 5, Events: []aggregate.RecordedEvent{}}, nil
	}))
}

func post(t *testing.T, h http.Handler, path, key string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"amount": 300}`))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set(httpapi.IdempotencyKeyHeader, key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// A replayed result is the first answer again, byte for byte and with the same status, plus
// Idempotent-Replayed: true; a first run carries no such header.
func TestReplayedAnswerIsMarked(t *testing.T) {
	t.Parallel()
	h := httpapi.New(httpapi.Options{Rules: testRules()}, replayModule{seen: map[string]bool{}})

	first := post(t, h, "/accounts/alice/payments", "pay-1")
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	require.Empty(t, first.Header().Values(httpapi.ReplayedHeader), "a first run is not a replay")

	again := post(t, h, "/accounts/alice/payments", "pay-1")
	require.Equal(t, http.StatusCreated, again.Code, "the first answer's status")
	require.Equal(t, []string{"true"}, again.Header().Values(httpapi.ReplayedHeader))
	require.Equal(t, first.Body.String(), again.Body.String(), "byte for byte")
	require.Equal(t, first.Header().Get("Content-Type"), again.Header().Get("Content-Type"))

	other := post(t, h, "/accounts/alice/payments", "pay-2")
	require.Empty(t, other.Header().Values(httpapi.ReplayedHeader), "another key is a first run")

	requireCode(t, post(t, h, "/accounts/alice/payments", ""), http.StatusBadRequest, "IdempotencyKeyMissing")
}

// A command that recorded nothing answers 200, not 201, and is no replay.
func TestNothingRecordedIs200(t *testing.T) {
	t.Parallel()
	rec := post(t, httpapi.New(httpapi.Options{Rules: testRules()}, replayModule{}), "/nothing", "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Empty(t, rec.Header().Values(httpapi.ReplayedHeader))
	require.JSONEq(t, `{"streamId":"book-dune","version":2,"position":5,"events":[]}`, rec.Body.String())
}

func requireCode(t *testing.T, rec *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	require.Equal(t, httpapi.ProblemContentType, rec.Header().Get("Content-Type"))
	var p httpapi.Problem
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	require.Equal(t, code, string(p.Code))
}

// testRules are the service's rules, and anyone may call the test module's routes.
func testRules() []auth.Rule {
	return append(auth.Rules(), auth.Anyone(http.MethodPost, "/accounts/{memberId}/payments"), auth.Anyone(http.MethodPost, "/nothing"))
}
