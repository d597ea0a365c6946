package apitest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MustJSON is v as JSON; the test fails if it can't be encoded.
func MustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// Obj is a JSON object to send.
type Obj = map[string]any

// Result is a command result, as the contract's "Command results" section shows it.
type Result struct {
	StreamID string  `json:"streamId"`
	Version  int64   `json:"version"`
	Position int64   `json:"position"`
	Events   []Event `json:"events"`
}

// Event is one event of a Result.
type Event struct {
	Type       string          `json:"type"`
	Version    int64           `json:"version"`
	Position   int64           `json:"position"`
	RecordedAt string          `json:"recordedAt"`
	Data       json.RawMessage `json:"data"`
}

// RequireResult checks that r is a command result with the given status, exactly the
// contract's members, and consistent versions and positions, and returns it.
func RequireResult(t *testing.T, r Response, status int, streamID string) Result {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	RequireKeys(t, r.Body, "streamId", "version", "position", "events")
	var res Result
	StrictDecode(t, r.Body, &res)
	require.Equal(t, streamID, res.StreamID)
	require.NotNil(t, res.Events, "events is an array, never null: %s", r.Body)
	if status == http.StatusCreated {
		require.NotEmpty(t, res.Events, "201 means events were recorded")
	} else {
		require.Empty(t, res.Events, "200 means nothing was recorded")
	}
	require.Positive(t, res.Version)
	require.Positive(t, res.Position)
	for i, e := range res.Events {
		RequireKeys(t, MustJSON(t, e), "type", "version", "position", "recordedAt", "data")
		// The last event's version and position are the result's; earlier ones count up to it.
		assert.Equal(t, res.Version-int64(len(res.Events)-1-i), e.Version, "event %d version", i)
		if i == len(res.Events)-1 {
			assert.Equal(t, res.Position, e.Position, "last event position")
		} else {
			assert.Less(t, e.Position, res.Events[i+1].Position)
		}
		at, err := time.Parse(time.RFC3339Nano, e.RecordedAt)
		require.NoError(t, err, "recordedAt is RFC 3339")
		assert.True(t, strings.HasSuffix(e.RecordedAt, "Z"), "recordedAt %s is in UTC", e.RecordedAt)
		assert.False(t, at.IsZero())
	}
	return res
}

// RequireEvent checks that a result holds exactly one event of type typ with the given data
// (compared as JSON) and returns that event.
func RequireEvent(t *testing.T, res Result, typ string, data string) Event {
	t.Helper()
	require.Len(t, res.Events, 1)
	e := res.Events[0]
	require.Equal(t, typ, e.Type)
	require.JSONEq(t, data, string(e.Data))
	return e
}

// RequireEventData checks that e's data has field, whose value is want once both are written
// as JSON.
func RequireEventData(t *testing.T, e Event, field string, want any) {
	t.Helper()
	var data map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(e.Data, &data))
	wanted, err := json.Marshal(want)
	require.NoError(t, err)
	require.Contains(t, data, field, "%s: %s", e.Type, e.Data)
	require.JSONEq(t, string(wanted), string(data[field]), "%s's %s", e.Type, field)
}

// Problem is an RFC 9457 problem as the contract defines it.
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	Code     string `json:"code"`
	Instance string `json:"instance"`
}

// RequireProblem checks that r is a problem with the given status and code, with exactly the
// contract's members and its instance equal to the X-Request-Id header, and returns it.
func RequireProblem(t *testing.T, r Response, status int, code string) Problem {
	t.Helper()
	return RequireProblemWith(t, r, status, code)
}

// RequireProblemWith is RequireProblem for a problem that carries the given extension members
// too, besides the contract's.
func RequireProblemWith(t *testing.T, r Response, status int, code string, extensions ...string) Problem {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"), "body: %s", r.Body)
	RequireKeys(t, r.Body, append([]string{"type", "title", "status", "detail", "code", "instance"}, extensions...)...)
	var p Problem
	require.NoError(t, json.Unmarshal(r.Body, &p), "body: %s", r.Body)
	require.Equal(t, code, p.Code, "detail: %s", p.Detail)
	require.Equal(t, status, p.Status)
	require.NotEmpty(t, p.Type)
	require.NotEmpty(t, p.Title)
	require.NotEmpty(t, p.Detail)
	require.NotEmpty(t, p.Instance)
	require.Equal(t, r.Header.Get("X-Request-Id"), p.Instance, "instance is the request id")
	return p
}

// RequireJSON checks that r is 200 application/json and decodes it into v, refusing members v
// does not have.
func RequireJSON(t *testing.T, r Response, v any) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	StrictDecode(t, r.Body, v)
}

// StrictDecode decodes body into v, refusing members v does not have.
func StrictDecode(t *testing.T, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "body: %s", body)
}

// RequireKeys checks that body is a JSON object with exactly the given members.
func RequireKeys(t *testing.T, body []byte, keys ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m), "body: %s", body)
	got := make([]string, 0, len(m))
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Clone(keys)
	slices.Sort(want)
	require.Equal(t, want, got, "members of %s", body)
}
