package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"library/internal/httpapi"
	"library/internal/validate"
)

// commandRoute is a command endpoint: the request line's method and the path around the
// identifier, and the stream type the identifier names.
type commandRoute struct {
	method, prefix, suffix string
	stream                 string
	// bodyID is true when the identifier is in the body (POST /books), not in the path.
	bodyID bool
}

// commandRoutes are the command endpoints of the API (docs/api.md), in the order a fuzz input picks them.
var commandRoutes = []commandRoute{
	{http.MethodPut, "/accounts/", "", "account", false},
	{http.MethodPost, "/accounts/", "/fines", "account", false},
	{http.MethodPost, "/accounts/", "/payments", "account", false},
	{http.MethodPost, "/books", "", "book", true},
	{http.MethodPost, "/books/", "/loans", "book", false},
	{http.MethodPost, "/books/", "/returns", "book", false},
	{http.MethodPost, "/titles", "", "title", true},
	{http.MethodPatch, "/titles/", "", "title", false},
}

// fuzzNow is the clock of the service under FuzzCommandOverHTTP.
var fuzzNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// newFuzzHandler returns the HTTP handler of a service built by New, in memory, with a book
// b1, a book b2 lent to m1 under L1, a fine on m1 and a title t1 with an ISBN, so that loans,
// returns, payments and changes of titles have something to work on.
func newFuzzHandler(tb testing.TB) http.Handler {
	tb.Helper()
	a, err := New(context.Background(), Config{HTTPAddr: "127.0.0.1:0", Tuning: Tuning{Now: func() time.Time { return fuzzNow }}},
		slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() {
		_ = a.listener.Close()
		a.closeStore()
	})
	h := a.server.Handler
	for _, setup := range []struct{ method, path, body string }{
		{http.MethodPost, "/books", `{"id":"b1","title":"Dune","author":"Frank Herbert"}`},
		{http.MethodPost, "/books", `{"id":"b2","title":"Emma","author":"Jane Austen"}`},
		{http.MethodPut, "/accounts/m1", `{"name":"Zoë","email":"zoe@example.org"}`},
		{http.MethodPost, "/books/b2/loans", `{"loanId":"L1","memberId":"m1"}`},
		{http.MethodPost, "/accounts/m1/fines", `{"amount":5000,"reason":"late"}`},
		{http.MethodPost, "/titles", `{"id":"t1","title":"Dune","authors":["Frank Herbert"],"isbn":"0441013597"}`},
	} {
		r := httptest.NewRequest(setup.method, setup.path, strings.NewReader(setup.body))
		r.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusCreated {
			tb.Fatalf("%s %s: %d %s", setup.method, setup.path, rec.Code, rec.Body)
		}
	}
	return h
}

// rawRequest is a command request as a client writes it on the wire: the identifier goes into
// the request line as it is, Content-Type and Idempotency-Key are sent when not empty.
func rawRequest(route commandRoute, id, key, contentType string, body []byte) []byte {
	target := route.prefix
	if !route.bodyID {
		target += id + route.suffix
	}
	var b bytes.Buffer
	b.WriteString(route.method + " " + target + " HTTP/1.1\r\nHost: library.test\r\n")
	if contentType != "" {
		b.WriteString("Content-Type: " + contentType + "\r\n")
	}
	if key != "" {
		b.WriteString("Idempotency-Key: " + key + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}

// serveRaw parses raw as net/http's server does and serves it; ok is false when net/http
// would refuse the request before any handler sees it.
func serveRaw(h http.Handler, raw []byte) (req *http.Request, rec *httptest.ResponseRecorder, ok bool) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		return nil, nil, false
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return req, rec, true
}

// FuzzCommandOverHTTP sends the command endpoints requests whose path identifier,
// Idempotency-Key, Content-Type and body come from the fuzzer, through the service's own
// handler (New, in memory). Every answer is below 500. An error is an RFC 9457 problem with a
// code other than Internal, its status and type agreeing with the code and its instance the
// request id. A success is a command result on the stream of a valid identifier (the path
// segment, percent-decoded once), 201 exactly when it lists events; with an Idempotency-Key,
// sending it again gives the same answer byte for byte, marked Idempotent-Replayed.
func FuzzCommandOverHTTP(f *testing.F) {
	const ct = "application/json"
	type seed struct {
		route                uint8
		id, key, contentType string
		body                 string
	}
	seeds := []seed{
		{0, "m2", "", ct, `{"name":"Alice","email":"alice@example.org"}`},
		{0, "m2", "k1", ct, `{"name":"Alice","email":null}`},
		{0, "alice%40example.org", "", ct, `{"name":"Alice"}`},
		{0, "m3", "", ct, `{"name":"Alice","email":""}`},
		{0, "m3", "", ct, `{"name":"A\r\nBcc: x@example.org","email":"a@example.org"}`},
		{0, "m3", "", ct, `{"name":"Alice","email":"a@example.org\r\nBcc: x@example.org"}`},
		{0, "m3", "", ct, `{"name":"Alice","name":"Bob"}`},
		{0, "m3", "", ct, `{"Name":"Alice"}`},
		{1, "m1", "", ct, `{"amount":250,"reason":"late","loanId":"L1"}`},
		{1, "m1", "f1", ct, `{"amount":1e3,"reason":"late"}`},
		{1, "m1", "", ct, `{"amount":-0,"reason":"late"}`},
		{1, "m1", "", ct, `{"amount":9223372036854775808,"reason":"late"}`},
		{1, "m1", "", ct, `{"amount":100000001,"reason":"late"}`},
		{1, "m1", "", ct, `{"amount":1,"reason":{"nested":[1,{"a":null}]}}`},
		{2, "m1", "p1", ct, `{"amount":100}`},
		{2, "m1", `"p2"`, ct, `{"amount":100}`},
		{2, "m1", "", ct, `{"amount":100}`},
		{2, "m1", "p3", ct, `{"amount":100}` + " x"},
		{2, "m1", "p3", ct, `{"amount":100}{}`},
		{2, "m9", "p4", ct, `{"amount":100}`},
		{2, "m1", "p5", "application/json; charset=iso-8859-1", `{"amount":100}`},
		{2, "m1", "p5", "text/plain", `{"amount":100}`},
		{2, "m1", "p5", "", `{"amount":100}`},
		{2, "m1", "p5", "application/json\r\nContent-Encoding: gzip", `{"amount":100}`},
		{2, "m1", "p5\x00", ct, `{"amount":100}`},
		{2, "m1", strings.Repeat("k", 256), ct, `{"amount":100}`},
		{3, "", "", ct, `{"id":"b3","title":"Dune","author":"Frank Herbert"}`},
		{3, "", "a1", ct, `{"id":"b1","title":"Dune","author":"Frank Herbert"}`},
		{3, "", "", ct, `{"id":"b/3","title":"Dune","author":"Frank Herbert"}`},
		{3, "", "", ct, `{"id":"b4","title":"Dune\u2028","author":"Frank Herbert"}`},
		{3, "", "", ct, `{"id":"b4","title":"` + strings.Repeat("é", 301) + `","author":"x"}`},
		{3, "", "", ct, "{\"id\":\"b4\",\"title\":\"Dune\",\"author\":\"\xff\"}"},
		{4, "b1", "", ct, `{"loanId":"L2","memberId":"m1"}`},
		{4, "b1", "l1", ct, `{"loanId":"L3","memberId":"m1","dueAt":"2026-12-24T17:00:00Z"}`},
		{4, "b1", "", ct, `{"loanId":"L4","memberId":"m1","dueAt":"2026-11-30T00:00:00Z"}`},
		{4, "b1", "", ct, `{"loanId":"L4","memberId":"m1","dueAt":"9999-12-31T23:59:59Z"}`},
		{4, "b1", "", ct, `{"loanId":"L4","memberId":"m1","dueAt":"not a time"}`},
		{4, "b2", "", ct, `{"loanId":"L1","memberId":"m2"}`},
		{4, "nope", "", ct, `{"loanId":"L5","memberId":"m1"}`},
		{5, "b2", "r1", ct, `{"loanId":"L1"}`},
		{5, "b2", "", ct, `{"loanId":"L9"}`},
		{5, "b1", "", ct, `{"loanId":"L1"}`},
		{2, "", "p6", ct, `{"amount":100}`},
		{2, "a%2Fb", "p6", ct, `{"amount":100}`},
		{2, "a%252Fb", "p6", ct, `{"amount":100}`},
		{2, "caf%C3%A9", "p6", ct, `{"amount":100}`},
		{2, "%", "p6", ct, `{"amount":100}`},
		{2, "-m1", "p6", ct, `{"amount":100}`},
		{2, strings.Repeat("a", 129), "p6", ct, `{"amount":100}`},
		{2, "m1?x=1", "p6", ct, `{"amount":100}`},
		{2, "m1%00", "p6", ct, `{"amount":100}`},
		{2, "m1", "p7", ct, ``},
		{2, "m1", "p7", ct, `null`},
		{2, "m1", "p7", ct, `[{"amount":100}]`},
		{2, "m1", "p7", ct, `{"amount":1` + strings.Repeat(" ", 2000) + `}`},
		{6, "", "", ct, `{"id":"t2","title":"Emma","authors":["Jane Austen"],"isbn":"978-0-14-143951-8","year":1815,"language":"eng"}`},
		{6, "", "n1", ct, `{"title":"Emma","authors":["Jane Austen"],"subjects":["Novels"]}`},
		{6, "", "", ct, `{"title":"Emma","authors":["Jane Austen"]}`},
		{6, "", "", ct, `{"id":"t3","title":"Dune","authors":["Frank Herbert"],"isbn":"9780441013593"}`},
		{6, "", "", ct, `{"id":"t3","title":"Dune","authors":["A","A"],"isbn":"0-441-0135X-7","year":-1,"language":"en-GB"}`},
		{7, "t1", "", "application/merge-patch+json", `{"isbn":"978-0-593-09932-2","year":null,"subjects":[]}`},
		{7, "t1", "c1", ct, `{"title":"Dune","authors":["Frank Herbert","Brian Herbert"],"isbn":null}`},
		{7, "t1", "", ct, `{"title":null}`},
		{7, "t1", "", "application/json-patch+json", `[{"op":"remove","path":"/year"}]`},
		{7, "t9", "", ct, `{"year":1965}`},
	}
	for _, s := range seeds {
		f.Add(s.route, s.id, s.key, s.contentType, []byte(s.body))
	}

	h := newFuzzHandler(f)
	f.Fuzz(func(t *testing.T, which uint8, id, key, contentType string, body []byte) {
		route := commandRoutes[int(which)%len(commandRoutes)]
		raw := rawRequest(route, id, key, contentType, body)
		req, rec, ok := serveRaw(h, raw)
		if !ok {
			return
		}
		what := route.method + " " + req.URL.String()
		requestID := rec.Header().Get(httpapi.RequestIDHeader)
		if !validate.IsID(requestID) {
			t.Fatalf("%s: X-Request-Id %q", what, requestID)
		}
		switch {
		case rec.Code >= 500:
			t.Fatalf("%s: %d %s", what, rec.Code, rec.Body)
		case rec.Code >= 400:
			p := requireFuzzProblem(t, what, rec)
			if p.Instance != requestID {
				t.Fatalf("%s: problem instance %q, request id %q", what, p.Instance, requestID)
			}
			return
		case rec.Code != http.StatusOK && rec.Code != http.StatusCreated:
			t.Fatalf("%s: status %d: %s", what, rec.Code, rec.Body)
		}

		res := requireFuzzResult(t, what, rec)
		streamType, streamID, _ := strings.Cut(res.StreamID, "-")
		if streamType != route.stream || !validate.IsID(streamID) {
			t.Fatalf("%s: a result on the stream %q", what, res.StreamID)
		}
		if !route.bodyID {
			segment := strings.TrimSuffix(strings.TrimPrefix(req.URL.EscapedPath(), route.prefix), route.suffix)
			if want, err := url.PathUnescape(segment); err != nil || want != streamID {
				t.Fatalf("%s: a result on the stream %q; the path names %q", what, res.StreamID, segment)
			}
		}

		if len(req.Header.Values(httpapi.IdempotencyKeyHeader)) == 0 {
			return
		}
		_, again, _ := serveRaw(h, raw)
		if again.Code != rec.Code || !bytes.Equal(again.Body.Bytes(), rec.Body.Bytes()) ||
			again.Header().Get(httpapi.ReplayedHeader) != "true" {
			t.Fatalf("%s: the retry answered %d %s (Idempotent-Replayed: %q); the first answer was %d %s",
				what, again.Code, again.Body, again.Header().Get(httpapi.ReplayedHeader), rec.Code, rec.Body)
		}
	})
}

// requireFuzzProblem checks that rec is a problem of the contract and returns it.
func requireFuzzProblem(t *testing.T, what string, rec *httptest.ResponseRecorder) httpapi.Problem {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != httpapi.ProblemContentType {
		t.Fatalf("%s: %d with Content-Type %q: %s", what, rec.Code, ct, rec.Body)
	}
	var p httpapi.Problem
	strictJSON(t, what, rec.Body.Bytes(), &p)
	if p.Status != rec.Code || p.Code == "" || p.Code == "Internal" || p.Title == "" || p.Detail == "" ||
		p.Type != "urn:library:problem:"+string(p.Code) {
		t.Fatalf("%s: %d with the problem %+v", what, rec.Code, p)
	}
	return p
}

// fuzzResult is a command result as docs/api.md describes it.
type fuzzResult struct {
	StreamID string            `json:"streamId"`
	Version  int64             `json:"version"`
	Position int64             `json:"position"`
	Events   []json.RawMessage `json:"events"`
}

// requireFuzzResult checks that rec is a command result that agrees with its status.
func requireFuzzResult(t *testing.T, what string, rec *httptest.ResponseRecorder) fuzzResult {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: %d with Content-Type %q", what, rec.Code, ct)
	}
	var res fuzzResult
	strictJSON(t, what, rec.Body.Bytes(), &res)
	if res.Events == nil || res.Version < 1 || res.Position < 1 ||
		(rec.Code == http.StatusCreated) != (len(res.Events) > 0) {
		t.Fatalf("%s: %d with the result %s", what, rec.Code, rec.Body)
	}
	return res
}

// strictJSON decodes body, one JSON value with no members v lacks, into v.
func strictJSON(t *testing.T, what string, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v in %s", what, err, body)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("%s: data after the JSON value: %s", what, body)
	}
}
