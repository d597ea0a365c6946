package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"library/internal/errs"
)

// testModule mounts routes that fail in the ways a handler can.
type testModule struct{}

func (testModule) Routes(r chi.Router) {
	r.Get("/panic", func(http.ResponseWriter, *http.Request) { panic("database password is hunter2") })
	r.Get("/internal", Handle(func(http.ResponseWriter, *http.Request) error {
		return errors.New("pq: relation \"secret_table\" does not exist")
	}))
	r.Get("/coded/{code}", Handle(func(_ http.ResponseWriter, r *http.Request) error {
		return errs.Wrap(errs.Code(chi.URLParam(r, "code")), errors.New("cause for the logs only"), "detail for the client")
	}))
	r.Get("/ids/{id}", Handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := PathID(r, "id")
		if err != nil {
			return err
		}
		WriteJSON(w, r, http.StatusOK, map[string]string{"id": id})
		return nil
	}))
	r.Post("/decode", Handle(func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name   string `json:"name"`
			Amount int64  `json:"amount"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		WriteJSON(w, r, http.StatusOK, body)
		return nil
	}))
}

func newTestAPI(t *testing.T) (http.Handler, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	return New(Options{Logger: logger, Ready: func(context.Context) error { return nil }, Rules: testRoutes}, testModule{}), &logs
}

func decodeProblem(t *testing.T, rec *httptest.ResponseRecorder) Problem {
	t.Helper()
	require.Equal(t, ProblemContentType, rec.Header().Get("Content-Type"))
	var p Problem
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	require.Equal(t, rec.Code, p.Status)
	require.Equal(t, rec.Header().Get(RequestIDHeader), p.Instance)
	require.NotEmpty(t, p.Instance)
	return p
}

// The one table: every code of the contract has its status.
func TestEveryCodeHasItsStatus(t *testing.T) {
	t.Parallel()
	api, _ := newTestAPI(t)
	want := map[errs.Code]int{
		errs.InvalidRequest: 400, errs.IdempotencyKeyMissing: 400, errs.Unauthorized: 401,
		errs.NotFound: 404, errs.MethodNotAllowed: 405, errs.BookAlreadyExists: 409,
		errs.BookAlreadyLent: 409, errs.LoanMismatch: 409, errs.NothingToPay: 409,
		errs.NotLeaseHolder: 409, errs.ConcurrencyConflict: 409, errs.PayloadTooLarge: 413,
		errs.UnsupportedMediaType: 415, errs.IdempotencyKeyReused: 422, errs.NotReplayable: 422,
		errs.NotCaughtUp: 503, errs.Unavailable: 503, errs.Internal: 500, "SomethingNew": 500,
		errs.TooManyRequests: 429, errs.Gone: 410, errs.AccountNotSettled: 409, errs.TitleAlreadyExists: 409,
		errs.BarcodeTaken: 409, errs.TerminalExists: 409, errs.CardTaken: 409, errs.PINInvalid: 403, errs.PINLocked: 423,
		errs.PreconditionRequired: 428, errs.PreconditionFailed: 412, errs.NotLendable: 409, errs.HoldsNotAllowed: 409,
		errs.BookMissing: 409,
	}
	for code, status := range want {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", "/coded/"+string(code), nil))
		require.Equal(t, status, rec.Code, code)
		p := decodeProblem(t, rec)
		if status == 500 {
			require.Equal(t, errs.Internal, p.Code, "unknown codes are internal errors")
			require.NotContains(t, p.Detail, "detail for the client")
		} else {
			require.Equal(t, code, p.Code)
			require.Equal(t, "detail for the client", p.Detail)
			require.Equal(t, "urn:library:problem:"+string(code), p.Type)
			require.NotEmpty(t, p.Title)
		}
		require.NotContains(t, rec.Body.String(), "cause for the logs only")
		if status == 503 || status == 429 {
			require.Equal(t, "1", rec.Header().Get("Retry-After"))
		}
	}
}

// A 500 shows no internal text; the text goes to the log, under the request id.
func TestInternalErrorsAreLoggedNotShown(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/panic", "/internal"} {
		api, logs := newTestAPI(t)
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		require.Equal(t, 500, rec.Code, path)
		p := decodeProblem(t, rec)
		require.Equal(t, errs.Internal, p.Code)
		require.NotContains(t, rec.Body.String(), "hunter2")
		require.NotContains(t, rec.Body.String(), "secret_table")

		var line map[string]any
		require.NoError(t, json.Unmarshal(lastLine(logs), &line))
		require.Equal(t, "ERROR", line["level"])
		require.Equal(t, p.Instance, line["request_id"])
		require.EqualValues(t, 500, line["status"])
		require.NotEmpty(t, line["error"])
	}
}

// A request's log line names its route pattern and its error code, never the ids in its path
// or in the error's detail: member ids may be personal.
func TestLogLinesCarryRoutesNotPaths(t *testing.T) {
	t.Parallel()
	api, logs := newTestAPI(t)
	for _, path := range []string{"/ids/alice@example.com", "/ids/%00alice@example.com"} {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		line := lastLine(logs)
		require.NotContains(t, string(line), "alice", path)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(line, &fields))
		require.Equal(t, "/ids/{id}", fields["route"], path)
	}
	require.Contains(t, string(lastLine(logs)), `"code":"InvalidRequest"`)
}

func TestRequestIDs(t *testing.T) {
	t.Parallel()
	api, logs := newTestAPI(t)

	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set(RequestIDHeader, "trace-42")
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, req)
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "trace-42", rec.Header().Get(RequestIDHeader), "a client's valid id is kept")
	require.Contains(t, string(lastLine(logs)), `"request_id":"trace-42"`)

	for _, bad := range []string{"", "has space", "line\nbreak", strings.Repeat("x", 200), "<script>"} {
		req := httptest.NewRequest("GET", "/healthz", nil)
		req.Header.Set(RequestIDHeader, bad)
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		got := rec.Header().Get(RequestIDHeader)
		require.NotEmpty(t, got)
		require.NotEqual(t, bad, got, "an invalid id is replaced")
	}
}

func TestRoutingProblems(t *testing.T) {
	t.Parallel()
	api, _ := newTestAPI(t)
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("GET", "/nowhere", nil))
	require.Equal(t, 404, rec.Code)
	require.Equal(t, errs.NotFound, decodeProblem(t, rec).Code)

	rec = httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("DELETE", "/decode", nil))
	require.Equal(t, 405, rec.Code)
	require.Equal(t, errs.MethodNotAllowed, decodeProblem(t, rec).Code)
	require.Equal(t, []string{"POST"}, rec.Header().Values("Allow"))
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	api, _ := newTestAPI(t)
	cases := []struct {
		name, contentType, body string
		status                  int
		code                    errs.Code
		detail                  string
	}{
		{"valid", "application/json", `{"name":"a","amount":3}`, 200, "", ""},
		{"charset", "application/json; charset=utf-8", `{"name":"a"}`, 200, "", ""},
		{"problem+json style", "application/merge-patch+json", `{"name":"a"}`, 200, "", ""},
		{"no content type", "", `{"name":"a"}`, 415, errs.UnsupportedMediaType, "application/json"},
		{"form", "application/x-www-form-urlencoded", `name=a`, 415, errs.UnsupportedMediaType, ""},
		{"latin-1", "application/json; charset=latin1", `{"name":"a"}`, 415, errs.UnsupportedMediaType, "UTF-8"},
		{"empty", "application/json", ``, 400, errs.InvalidRequest, "empty"},
		{"array", "application/json", `[1]`, 400, errs.InvalidRequest, "JSON object"},
		{"null", "application/json", `null`, 400, errs.InvalidRequest, "JSON object"},
		{"syntax", "application/json", `{"name":}`, 400, errs.InvalidRequest, "not valid JSON"},
		{"truncated", "application/json", `{"name":"a"`, 400, errs.InvalidRequest, "not valid JSON"},
		{"unknown field", "application/json", `{"name":"a","admin":true}`, 400, errs.InvalidRequest, `unknown field "admin"`},
		{"wrong type", "application/json", `{"amount":"3"}`, 400, errs.InvalidRequest, "amount must be a whole number in range, not a JSON string"},
		{"fraction", "application/json", `{"amount":3.5}`, 400, errs.InvalidRequest, "amount must be a whole number"},
		{"overflow", "application/json", `{"amount":1e30}`, 400, errs.InvalidRequest, "amount must be a whole number"},
		{"trailing", "application/json", `{"name":"a"} {"name":"b"}`, 400, errs.InvalidRequest, "single JSON object"},
		{"trailing garbage", "application/json", `{"name":"a"}x`, 400, errs.InvalidRequest, "single JSON object"},
		{"invalid utf-8", "application/json", "{\"name\":\"\xff\"}", 400, errs.InvalidRequest, "UTF-8"},
		{"too large", "application/json", `{"name":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, 413, errs.PayloadTooLarge, ""},
	}
	for _, c := range cases {
		req := httptest.NewRequest("POST", "/decode", strings.NewReader(c.body))
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		require.Equal(t, c.status, rec.Code, "%s: %s", c.name, rec.Body.String())
		if c.status != 200 {
			p := decodeProblem(t, rec)
			require.Equal(t, c.code, p.Code, c.name)
			require.Contains(t, p.Detail, c.detail, c.name)
		}
	}
}

// Headers that would let a body slip past the checks are refused.
func TestDecodeJSONHeaders(t *testing.T) {
	t.Parallel()
	api, _ := newTestAPI(t)
	send := func(body string, header http.Header, contentLength int64) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/decode", strings.NewReader(body))
		req.Header = header
		if contentLength > 0 {
			req.ContentLength = contentLength
		}
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		return rec
	}
	twoTypes := http.Header{"Content-Type": {"application/json", "text/plain"}}
	require.Equal(t, 415, send(`{"name":"a"}`, twoTypes, 0).Code, "two Content-Type headers")
	gzip := http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}}
	require.Equal(t, 415, send(`{"name":"a"}`, gzip, 0).Code, "a compressed body")
	identity := http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"identity"}}
	require.Equal(t, 200, send(`{"name":"a"}`, identity, 0).Code)
	// A declared length over the limit is refused before anything is read.
	rec := send(`{}`, http.Header{"Content-Type": {"application/json"}}, MaxBodyBytes+1)
	require.Equal(t, 413, rec.Code)
	require.Equal(t, errs.PayloadTooLarge, decodeProblem(t, rec).Code)
}

// A path id is decoded once: encoded characters that ids allow are accepted, a literal "%"
// (sent as %25) is not an id character, and an encoded slash is refused.
func TestPathIDsAreDecodedOnce(t *testing.T) {
	t.Parallel()
	api, _ := newTestAPI(t)
	cases := map[string]int{
		"/ids/alice@example.org":     200,
		"/ids/alice%40example.org":   200,
		"/ids/isbn%3A978%2B1":        200,
		"/ids/alice%2540example.org": 400,
		"/ids/a%2Fb":                 400,
		"/ids/a%20b":                 400,
	}
	for path, status := range cases {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		require.Equal(t, status, rec.Code, path)
		if status == 200 {
			require.Contains(t, rec.Body.String(), `"id":"`, path)
			require.NotContains(t, rec.Body.String(), "%", path)
		}
	}
}

// HEAD works wherever GET does, and 405's Allow header is right on escaped paths too.
func TestHeadAndAllow(t *testing.T) {
	t.Parallel()
	api, _ := newTestAPI(t)
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("HEAD", "/ids/alice", nil))
	require.Equal(t, 200, rec.Code)

	rec = httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("DELETE", "/ids/alice%40example.org", nil))
	require.Equal(t, 405, rec.Code)
	require.Equal(t, []string{"GET"}, rec.Header().Values("Allow"))
}

func TestParseIdempotencyKey(t *testing.T) {
	t.Parallel()
	valid := map[string]string{
		"abc":                                "abc",
		"7b6f0e1c-pay-dune":                  "7b6f0e1c-pay-dune",
		`"abc"`:                              "abc",
		`"a \"quoted\" \\ key"`:              `a "quoted" \ key`,
		"with space":                         "with space",
		strings.Repeat("k", 255):             strings.Repeat("k", 255),
		`"` + strings.Repeat("k", 255) + `"`: strings.Repeat("k", 255),
		`a"b`:                                `a"b`,
	}
	for in, want := range valid {
		got, err := ParseIdempotencyKey(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	for _, in := range []string{
		"", `""`, strings.Repeat("k", 256), "tab\there", "new\nline", "caf\u00e9", "\x7f",
		`"unterminated`, `"bad \escape"`, `"inner " quote"`, `"`,
	} {
		_, err := ParseIdempotencyKey(in)
		require.True(t, errs.Is(err, errs.InvalidRequest), "%q: %v", in, err)
	}
}

func TestIdempotencyKeyHeader(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest("POST", "/", nil)
	key, err := IdempotencyKey(req)
	require.NoError(t, err)
	require.Empty(t, key)

	req.Header.Add(IdempotencyKeyHeader, "one")
	req.Header.Add(IdempotencyKeyHeader, "two")
	_, err = IdempotencyKey(req)
	require.True(t, errs.Is(err, errs.InvalidRequest), "two keys are one too many")
}

func lastLine(b *bytes.Buffer) []byte {
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	return lines[len(lines)-1]
}
