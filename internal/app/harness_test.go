package app_test

// The harness starts the real service (app.New and Run, the production wiring) on a free
// local port and talks to it over HTTP. Every contract test runs once per store: in memory and
// on a fresh PostgreSQL database.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/pgtest"
)

// startService runs the service with cfg on 127.0.0.1 until the test ends, then stops it and
// checks that Run returned nil. It returns the service's base URL.
func startService(t testing.TB, cfg app.Config) (baseURL string) {
	t.Helper()
	baseURL, _ = runService(t, cfg)
	return baseURL
}

// runService is startService that can also be stopped before the test ends: stop shuts the
// service down as SIGTERM would and waits for Run to return. Calling it again does nothing.
func runService(t testing.TB, cfg app.Config) (baseURL string, stop func()) {
	t.Helper()
	var logs io.Writer = &testLog{t: t}
	if _, benchmark := t.(*testing.B); benchmark {
		logs = io.Discard // a line per request would drown the figures
	}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if cfg.ReplicaID != "" {
		logger = logger.With("replica", cfg.ReplicaID)
	}
	return runServiceLogging(t, cfg, logger)
}

// runServiceLogging is runService with the service logging to logger.
func runServiceLogging(t testing.TB, cfg app.Config, logger *slog.Logger) (baseURL string, stop func()) {
	t.Helper()
	cfg.HTTPAddr = "127.0.0.1:0"
	a, err := app.New(context.Background(), cfg, logger)
	require.NoError(t, err, "app.New")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				assert.NoError(t, err, "Run must return nil after a clean shutdown")
			case <-time.After(30 * time.Second):
				t.Error("Run did not return within 30s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
	return "http://" + a.Addr(), stop
}

// testLog sends the service's log lines to t.Log, shown for failed tests and with -v.
type testLog struct{ t testing.TB }

func (w *testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// clock is a settable clock for app.Config.Now, safe for the server's goroutines.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

// t0 is the time every test clock starts at.
var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A store is where a service under test keeps its events.
type store struct {
	name        string
	databaseURL func(t *testing.T) string
}

var stores = []store{
	{"memory", func(*testing.T) string { return "" }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDatabase(t) }},
}

// forEachStore runs test, in parallel, once per store, each with its own service started
// from cfg (DatabaseURL is set per store) and a clock at t0 unless cfg brings one.
func forEachStore(t *testing.T, cfg app.Config, test func(t *testing.T, api *api)) {
	t.Helper()
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			c := cfg
			c.DatabaseURL = s.databaseURL(t)
			clk := newClock()
			if c.Now == nil {
				c.Now = clk.Now
			}
			test(t, &api{base: startService(t, c), clock: clk, store: s.name})
		})
	}
}

// api is a client of one running service.
type api struct {
	base  string
	clock *clock // the service's clock, unless the test gave its own
	store string
}

// response is a whole HTTP answer, its body read.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

var client = &http.Client{Timeout: 30 * time.Second}

// send makes a request. headers are name, value pairs, added to the request (so a name may
// repeat), except that Content-Type replaces the default and an empty value removes the
// header. A non-nil body is sent as application/json unless headers say otherwise.
func (a *api) send(t *testing.T, method, path string, body []byte, headers ...string) response {
	t.Helper()
	r, err := a.trySend(method, path, body, headers...)
	require.NoError(t, err, "%s %s", method, path)
	return r
}

// trySend is send for goroutines other than the test's: it returns its error, which is also
// an answer that does not match the OpenAPI document (that answer is returned too).
func (a *api) trySend(method, path string, body []byte, headers ...string) (response, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, a.base+path, reader)
	if err != nil {
		return response{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(headers)%2 != 0 {
		return response{}, errors.New("headers come in name, value pairs")
	}
	for i := 0; i < len(headers); i += 2 {
		switch name, value := headers[i], headers[i+1]; {
		case value == "":
			req.Header.Del(name)
		case http.CanonicalHeaderKey(name) == "Content-Type":
			req.Header.Set(name, value)
		default:
			req.Header.Add(name, value)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	r := response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	// Every answer must be one the OpenAPI document allows (see openapi_contract_test.go).
	return r, checkContract(req, r.Status, r.Header, r.Body)
}

// call sends v encoded as JSON (nil: no body).
func (a *api) call(t *testing.T, method, path string, v any, headers ...string) response {
	t.Helper()
	var body []byte
	if v != nil {
		body = mustJSON(t, v)
	}
	return a.send(t, method, path, body, headers...)
}

func (a *api) get(t *testing.T, path string) response {
	t.Helper()
	return a.send(t, http.MethodGet, path, nil)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// obj is a JSON object to send.
type obj = map[string]any

// result is a command result, as the contract's "Command results" section shows it.
type result struct {
	StreamID string  `json:"streamId"`
	Version  int64   `json:"version"`
	Position int64   `json:"position"`
	Events   []event `json:"events"`
}

type event struct {
	Type       string          `json:"type"`
	Version    int64           `json:"version"`
	Position   int64           `json:"position"`
	RecordedAt string          `json:"recordedAt"`
	Data       json.RawMessage `json:"data"`
}

// requireResult checks that r is a command result with the given status, exactly the
// contract's members, and consistent versions and positions, and returns it.
func requireResult(t *testing.T, r response, status int, streamID string) result {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	requireKeys(t, r.Body, "streamId", "version", "position", "events")
	var res result
	strictDecode(t, r.Body, &res)
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
		requireKeys(t, mustJSON(t, e), "type", "version", "position", "recordedAt", "data")
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

// requireEvent checks that a result holds exactly one event of type typ with the given data
// (compared as JSON) and returns that event.
func requireEvent(t *testing.T, res result, typ string, data string) event {
	t.Helper()
	require.Len(t, res.Events, 1)
	e := res.Events[0]
	require.Equal(t, typ, e.Type)
	require.JSONEq(t, data, string(e.Data))
	return e
}

// problem is an RFC 9457 problem as the contract defines it.
type problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	Code     string `json:"code"`
	Instance string `json:"instance"`
}

// requireProblem checks that r is a problem with the given status and code, with exactly the
// contract's members and its instance equal to the X-Request-Id header, and returns it.
func requireProblem(t *testing.T, r response, status int, code string) problem {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"), "body: %s", r.Body)
	requireKeys(t, r.Body, "type", "title", "status", "detail", "code", "instance")
	var p problem
	strictDecode(t, r.Body, &p)
	require.Equal(t, code, p.Code, "detail: %s", p.Detail)
	require.Equal(t, status, p.Status)
	require.NotEmpty(t, p.Type)
	require.NotEmpty(t, p.Title)
	require.NotEmpty(t, p.Detail)
	require.NotEmpty(t, p.Instance)
	require.Equal(t, r.Header.Get("X-Request-Id"), p.Instance, "instance is the request id")
	return p
}

// requireJSON checks that r is 200 application/json and decodes it into v, refusing members v
// does not have.
func requireJSON(t *testing.T, r response, v any) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	strictDecode(t, r.Body, v)
}

func strictDecode(t *testing.T, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "body: %s", body)
}

// requireKeys checks that body is a JSON object with exactly the given members.
func requireKeys(t *testing.T, body []byte, keys ...string) {
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

// badIDs are path identifiers the contract refuses with 400 InvalidRequest, as they appear
// in a URL.
var badIDs = map[string]string{
	"leading dash":      "-x",
	"129 characters":    strings.Repeat("a", 129),
	"encoded space":     "a%20b",
	"encoded slash":     "a%2Fb",
	"leading dot":       ".x",
	"encoded non-ASCII": "caf%C3%A9",
}

// requireBadPathIDs checks that every bad identifier in the path is 400 InvalidRequest,
// never 404 or 500. path has one %s where the identifier goes; body is sent when not nil.
func requireBadPathIDs(t *testing.T, a *api, method, path string, body any, headers ...string) {
	t.Helper()
	for name, id := range badIDs {
		t.Run("bad path id/"+name, func(t *testing.T) {
			r := a.call(t, method, strings.Replace(path, "%s", id, 1), body, headers...)
			requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
		})
	}
}

// requireBodyErrors checks the rules every JSON body follows (see "General"): malformed,
// empty, non-object, trailing data, unknown fields and invalid UTF-8 are 400 InvalidRequest;
// a body that is not JSON by Content-Type is 415; a body over 1 MiB is 413. valid is a body the
// endpoint accepts, as a JSON object.
func requireBodyErrors(t *testing.T, a *api, method, path string, valid string, headers ...string) {
	t.Helper()
	bad := map[string]string{
		"malformed JSON":   `{"a":`,
		"not JSON":         `hello`,
		"empty body":       ``,
		"only spaces":      `   `,
		"JSON array":       `[` + valid + `]`,
		"JSON null":        `null`,
		"JSON string":      `"x"`,
		"trailing object":  valid + `{}`,
		"trailing garbage": valid + ` x`,
		"unknown field":    valid[:len(valid)-1] + `,"surprise":1}`,
		"invalid UTF-8":    withInvalidUTF8(valid),
	}
	for name, body := range bad {
		t.Run("body/"+name, func(t *testing.T) {
			r := a.send(t, method, path, []byte(body), headers...)
			requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
		})
	}
	for name, contentType := range map[string]string{
		"no Content-Type":       "",
		"text/plain":            "text/plain",
		"form":                  "application/x-www-form-urlencoded",
		"latin-1 JSON":          "application/json; charset=iso-8859-1",
		"unparsable media type": "application/json; =",
	} {
		t.Run("415/"+name, func(t *testing.T) {
			h := append(slices.Clone(headers), "Content-Type", contentType)
			r := a.send(t, method, path, []byte(valid), h...)
			requireProblem(t, r, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
		})
	}
	t.Run("413/one byte over 1 MiB", func(t *testing.T) {
		r := a.send(t, method, path, bodyOfSize(1<<20+1), headers...)
		requireProblem(t, r, http.StatusRequestEntityTooLarge, "PayloadTooLarge")
	})
	t.Run("exactly 1 MiB is read, not refused for its size", func(t *testing.T) {
		// The same object one byte shorter is read and refused for its unknown field.
		r := a.send(t, method, path, bodyOfSize(1<<20), headers...)
		requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
	})
}

// withInvalidUTF8 puts two bytes that are not UTF-8 at the start of the first string value of
// the object valid, or in an extra member when it has no string value.
func withInvalidUTF8(valid string) string {
	if i := strings.Index(valid, `":"`); i >= 0 {
		return valid[:i+3] + "\xff\xfe" + valid[i+3:]
	}
	return valid[:len(valid)-1] + `,"x":"` + "\xff\xfe" + `"}`
}

// bodyOfSize is a JSON object of exactly n bytes with one unknown field.
func bodyOfSize(n int) []byte {
	const prefix, suffix = `{"padding":"`, `"}`
	return []byte(prefix + strings.Repeat("a", n-len(prefix)-len(suffix)) + suffix)
}

// messageIDPattern is a loan email's Message-ID: the event's position, the time it was
// recorded, the installation, at MAIL_FROM's domain.
var messageIDPattern = regexp.MustCompile(`^<notifications\.([0-9]+)\.[0-9a-z]+\.[0-9A-Za-z-]+@([^>]+)>$`)

// requireMessageID checks that id is the Message-ID of the loan email for the event at
// position, at domain.
func requireMessageID(t *testing.T, id string, position int64, domain string) {
	t.Helper()
	m := messageIDPattern.FindStringSubmatch(id)
	require.NotNil(t, m, "Message-ID %q", id)
	require.Equal(t, strconv.FormatInt(position, 10), m[1], "the position in %s", id)
	require.Equal(t, domain, m[2], "the domain of %s", id)
}

// emailPosition is the position of the event a loan email's Message-ID names.
func emailPosition(t *testing.T, id string) int64 {
	t.Helper()
	m := messageIDPattern.FindStringSubmatch(id)
	require.NotNil(t, m, "Message-ID %q", id)
	p, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	return p
}
