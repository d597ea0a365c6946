package httpapi_test

// Fuzz targets for what the HTTP edge reads from a request before any command runs: the
// Idempotency-Key header, JSON bodies and identifiers in paths. Each checks the rule docs/api.md
// states, not only that nothing panics. The seeds below and those in testdata/fuzz run with every
// `go test`; `go test -fuzz` explores from them.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"library/internal/accounts"
	"library/internal/auth"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/httpapi"
)

// sfString writes key as an RFC 8941 sf-string: in double quotes, with \ and " escaped. It is
// the only way to write a given key as one.
func sfString(key string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
}

// isPrintableASCII reports whether every byte of s is printable ASCII, space included.
func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// FuzzParseIdempotencyKey checks the API's rule (docs/api.md) for Idempotency-Key: 1 to 255 printable ASCII
// characters, or such a string in double quotes. An accepted value gives a key that follows the
// rule and is the value itself, or the value unquoted; every printable key is accepted both
// bare and quoted; a refusal is an InvalidRequest; and the header may be sent only once.
func FuzzParseIdempotencyKey(f *testing.F) {
	for _, seed := range []string{
		"", "a", "~", " ", "a b", "550e8400-e29b-41d4-a716-446655440000",
		`""`, `"a"`, `"`, `"a`, `a"`, `"a"b"`, `"a\"b"`, `"a\\b"`, `"a\b"`, `"\"`, `"\\"`, `"a\`,
		strings.Repeat("k", 255), strings.Repeat("k", 256),
		sfString(strings.Repeat("k", 255)), sfString(strings.Repeat("k", 256)),
		sfString(strings.Repeat(`\`, 200)), // 400 bytes quoted, 200 unquoted
		"a\r\nX-Evil: 1", "a\x00", "a\x7f", "\t", "café", "\xff", `"café"`, "\"a\x00\"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		key, err := httpapi.ParseIdempotencyKey(value)
		if err != nil {
			if code := errs.CodeOf(err); code != errs.InvalidRequest {
				t.Fatalf("ParseIdempotencyKey(%q) refused with code %s, want InvalidRequest", value, code)
			}
			if key != "" {
				t.Fatalf("ParseIdempotencyKey(%q) refused but returned the key %q", value, key)
			}
		} else {
			if len(key) < 1 || len(key) > 255 || !isPrintableASCII(key) {
				t.Fatalf("ParseIdempotencyKey(%q) accepted the key %q, which is not 1 to 255 printable ASCII characters", value, key)
			}
			if strings.HasPrefix(value, `"`) {
				if sfString(key) != value {
					t.Fatalf("ParseIdempotencyKey(%q) = %q, but that key quotes as %s", value, key, sfString(key))
				}
			} else if key != value {
				t.Fatalf("ParseIdempotencyKey(%q) = %q; a bare key is taken as it is", value, key)
			}
		}

		// Every key the rule allows is accepted, bare (unless it starts with a quote, which
		// makes it a quoted string) and quoted, and comes back unchanged.
		if len(value) >= 1 && len(value) <= 255 && isPrintableASCII(value) {
			if !strings.HasPrefix(value, `"`) && (err != nil || key != value) {
				t.Fatalf("ParseIdempotencyKey(%q) = %q, %v; want the key as it is", value, key, err)
			}
			if got, err := httpapi.ParseIdempotencyKey(sfString(value)); err != nil || got != value {
				t.Fatalf("ParseIdempotencyKey(%s) = %q, %v; want %q", sfString(value), got, err, value)
			}
		}

		// Through a request: one header is read like the value alone; two are refused.
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header.Add(httpapi.IdempotencyKeyHeader, value)
		if got, gotErr := httpapi.IdempotencyKey(r); got != key || (gotErr == nil) != (err == nil) {
			t.Fatalf("IdempotencyKey with the header %q = %q, %v; ParseIdempotencyKey gave %q, %v", value, got, gotErr, key, err)
		}
		r.Header.Add(httpapi.IdempotencyKeyHeader, value)
		if _, err := httpapi.IdempotencyKey(r); errs.CodeOf(err) != errs.InvalidRequest {
			t.Fatalf("two Idempotency-Key headers: got %v, want InvalidRequest", err)
		}
	})
}

// payload is one of the request bodies the handlers decode: a fresh value to decode into and
// the field names docs/api.md gives it.
type payload struct {
	name   string
	new    func() any
	fields []string
}

// payloads are the bodies of the command endpoints. The handlers' own types for PUT
// /accounts/{id} and POST /books/{id}/loans are unexported; contactBody and lendBody have their
// fields, names and Go types, which is all that decoding looks at. FuzzCommandOverHTTP in
// internal/app sends bodies to the handlers themselves.
var payloads = []payload{
	{"AddBook", func() any { return new(books.AddBook) }, []string{"id", "title", "author"}},
	{"lend", func() any { return new(lendBody) }, []string{"loanId", "memberId", "dueAt"}},
	{"ReturnBook", func() any { return new(books.ReturnBook) }, []string{"loanId"}},
	{"contact", func() any { return new(contactBody) }, []string{"name", "email"}},
	{"ChargeFine", func() any { return new(accounts.ChargeFine) }, []string{"amount", "reason", "loanId"}},
	{"Pay", func() any { return new(accounts.Pay) }, []string{"amount"}},
}

type lendBody struct {
	LoanID   string  `json:"loanId"`
	MemberID string  `json:"memberId"`
	DueAt    *string `json:"dueAt"`
}

type contactBody struct {
	Name  string  `json:"name"`
	Email *string `json:"email"`
}

// isJSONMediaType is the API's rule (docs/api.md) for Content-Type: exactly one, naming JSON
// (application/json or application/...+json), in UTF-8 if it names a charset.
func isJSONMediaType(values []string) bool {
	if len(values) != 1 {
		return false
	}
	mediaType, params, err := mime.ParseMediaType(values[0])
	if err != nil {
		return false
	}
	sub, ok := strings.CutPrefix(mediaType, "application/")
	if !ok || sub != "json" && !strings.HasSuffix(sub, "+json") {
		return false
	}
	charset, ok := params["charset"]
	return !ok || strings.EqualFold(charset, "utf-8")
}

// topLevelKeys returns the member names of the JSON object body, in order, repeats included.
func topLevelKeys(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		t.Fatalf("an accepted body does not start a JSON value: %v", err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("an accepted body is not JSON: %v", err)
		}
		keys = append(keys, tok.(string))
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			t.Fatalf("an accepted body is not JSON: %v", err)
		}
	}
	return keys
}

// contentTypes turns the fuzzed text into Content-Type header values: one per line, none when
// it is empty.
func contentTypes(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// FuzzDecodeJSON sends arbitrary bodies and Content-Types to DecodeJSON with each payload type.
// A refusal is an *errs.Error coded 400, 413 or 415, and 415 exactly when the Content-Type is
// not one JSON media type. An accepted body is valid UTF-8 JSON: one object, nothing after it,
// whose members are the payload's fields, spelled exactly and each given once, and it decodes
// to what encoding/json makes of it.
func FuzzDecodeJSON(f *testing.F) {
	const ct = "application/json"
	for _, seed := range []struct {
		contentType string
		body        string
	}{
		{ct, `{"id":"b1","title":"Dune","author":"Frank Herbert"}`},
		{ct, `{"loanId":"L1","memberId":"m1","dueAt":"2026-12-24T17:00:00Z"}`},
		{ct, `{"loanId":"L1","memberId":"m1","dueAt":null}`},
		{ct, `{"name":"Alice","email":"alice@example.org"}`},
		{ct, `{"name":"Alice","email":null}`},
		{ct, `{"amount":250,"reason":"late","loanId":"L1"}`},
		{ct, `{"amount":250}`},
		{ct, ``},
		{ct, `   `},
		{ct, `{}`},
		{ct, ` {"amount":1} `},
		{ct, `{"amount":1}{}`},
		{ct, `{"amount":1} x`},
		{ct, `{"amount":1}` + "\x00"},
		{ct, `{"amount":1,"amount":2}`},
		{ct, `{"Amount":1}`},
		{ct, `{"AMOUNT":1}`},
		{ct, `{"amount":{"nested":{"deeper":[1,2,{"x":null}]}}}`},
		{ct, `{"amount":1e3}`},
		{ct, `{"amount":-0}`},
		{ct, `{"amount":9223372036854775808}`},
		{ct, `{"amount":"100"}`},
		{ct, `{"name":"` + "\xff\xfe" + `"}`},
		{ct, `{"name":"\ud800"}`},
		{ct, `{"name":"Zoë \u202e","email":"z@example.org"}`},
		{ct, "{\"name\":\"a\r\nBcc: evil@example.org\"}"},
		{ct, `{"name":"` + strings.Repeat("a", 16<<10) + `"}`},
		{ct, strings.Repeat("[", 2_000)},
		{ct, strings.Repeat(`{"a":`, 2_000)},
		{ct, `[{"amount":1}]`},
		{ct, `null`},
		{ct, `"x"`},
		{ct, "\ufeff{}"},
		{"", `{"amount":1}`},
		{"application/json; charset=utf-8", `{"amount":1}`},
		{"application/json; charset=UTF-8", `{"amount":1}`},
		{"application/json; charset=iso-8859-1", `{"amount":1}`},
		{"application/merge-patch+json", `{"amount":1}`},
		{"Application/JSON", `{"amount":1}`},
		{"application/json; =", `{"amount":1}`},
		{"application/json\napplication/json", `{"amount":1}`},
		{"text/plain", `{"amount":1}`},
		{"application/x-www-form-urlencoded", `amount=1`},
		{"application/+json", `{"amount":1}`},
		{"text/vnd.library+json", `{"amount":1}`},
		{"application/json\x00", `{"amount":1}`},
	} {
		for i := range payloads {
			f.Add(seed.contentType, []byte(seed.body), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, contentType string, body []byte, which uint8) {
		p := payloads[int(which)%len(payloads)]
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		for _, v := range contentTypes(contentType) {
			r.Header.Add("Content-Type", v)
		}
		r.Body = http.MaxBytesReader(rec, r.Body, httpapi.MaxBodyBytes) // as the router does
		dst := p.new()
		err := httpapi.DecodeJSON(r, dst)

		jsonType := isJSONMediaType(r.Header.Values("Content-Type"))
		if err != nil {
			var e *errs.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: DecodeJSON returned %v, which is not an *errs.Error (a 500)", p.name, err)
			}
			switch e.Code {
			case errs.InvalidRequest, errs.PayloadTooLarge, errs.UnsupportedMediaType:
			default:
				t.Fatalf("%s: DecodeJSON refused with code %s: %v", p.name, e.Code, err)
			}
			if (e.Code == errs.UnsupportedMediaType) != !jsonType {
				t.Fatalf("%s: Content-Type %q gave %v", p.name, contentType, err)
			}
			if e.Code == errs.PayloadTooLarge && len(body) <= httpapi.MaxBodyBytes {
				t.Fatalf("%s: a body of %d bytes is not too large", p.name, len(body))
			}
			return
		}

		if !jsonType {
			t.Fatalf("%s: accepted the Content-Type %q", p.name, contentType)
		}
		if len(body) > httpapi.MaxBodyBytes || !utf8.Valid(body) || !json.Valid(body) {
			t.Fatalf("%s: accepted a body that is too large, not UTF-8 or not JSON: %q", p.name, body)
		}
		if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
			t.Fatalf("%s: accepted a body that is not an object: %q", p.name, body)
		}
		keys := topLevelKeys(t, body)
		for i, k := range keys {
			if !slices.Contains(p.fields, k) {
				t.Fatalf("%s: accepted the member %q, which is none of %q", p.name, k, p.fields)
			}
			if slices.Contains(keys[:i], k) {
				t.Fatalf("%s: accepted the member %q twice", p.name, k)
			}
		}
		plain := p.new()
		if err := json.Unmarshal(body, plain); err != nil || !reflect.DeepEqual(plain, dst) {
			t.Fatalf("%s: DecodeJSON gave %+v; encoding/json gives %+v, %v", p.name, dst, plain, err)
		}
	})
}

// idPattern is the API's identifier rule (docs/api.md), written independently of validate.IsID.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$`)

// idModule answers GET /ids/{id} with the id PathID gives.
type idModule struct{}

func (idModule) Routes(r chi.Router) {
	r.Get("/ids/{id}", httpapi.Handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpapi.PathID(r, "id")
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, r, http.StatusOK, map[string]string{"id": id})
		return nil
	}))
}

// FuzzPathID sends GET /ids/{segment} through the service's router, the request line parsed as
// net/http parses it. An id PathID accepts follows the identifier rule (so it holds no control
// character, slash or percent sign) and is the path segment percent-decoded once; a segment
// that decodes to a valid identifier is accepted; anything else is a 400 InvalidRequest
// problem, or a 404 when the path is not /ids/{one segment}.
func FuzzPathID(f *testing.F) {
	for _, seed := range []string{
		"b1", "alice@example.org", "alice%40example.org", "a%2540b", "a%2Fb", "a%2fb", "a/b",
		"a%20b", "caf%C3%A9", "café", "%", "%zz", "a%00b", "a%0D%0AX-Evil:%201", "-x", ".x", "..",
		"%2E%2E", strings.Repeat("a", 128), strings.Repeat("a", 129), strings.Repeat("%41", 128),
		"a?b=c", "a#b", "a;b", "A.b_c:d@e+f-g", "",
	} {
		f.Add(seed)
	}
	rules := append(auth.Rules(), auth.Anyone(http.MethodGet, "/ids/{id}"))
	handler := httpapi.New(httpapi.Options{Logger: slog.New(slog.DiscardHandler), Rules: rules}, idModule{})
	f.Fuzz(func(t *testing.T, segment string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(
			"GET /ids/" + segment + " HTTP/1.1\r\nHost: library.test\r\n\r\n")))
		if err != nil {
			return // net/http refuses the request line itself; no handler sees it
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		// The path segment as it was sent, and the identifier it names (once decoded).
		raw, isIDPath := strings.CutPrefix(req.URL.EscapedPath(), "/ids/")
		want, err := url.PathUnescape(raw)
		isIDPath = isIDPath && err == nil && !strings.Contains(raw, "/")
		if isIDPath && idPattern.MatchString(want) && rec.Code != http.StatusOK {
			t.Fatalf("GET /ids/%s: %d for the valid identifier %q: %s", segment, rec.Code, want, body)
		}
		switch rec.Code {
		case http.StatusOK:
			var got struct{ ID string }
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("GET /ids/%s: %v in %s", segment, err, body)
			}
			if !idPattern.MatchString(got.ID) {
				t.Fatalf("GET /ids/%s: PathID accepted %q", segment, got.ID)
			}
			if !isIDPath || want != got.ID {
				t.Fatalf("GET /ids/%s: PathID gave %q, the path segment is %q", segment, got.ID, raw)
			}
		case http.StatusBadRequest, http.StatusNotFound:
			p := requireProblem(t, rec)
			if rec.Code == http.StatusBadRequest && p.Code != errs.InvalidRequest {
				t.Fatalf("GET /ids/%s: 400 with code %s", segment, p.Code)
			}
		default:
			t.Fatalf("GET /ids/%s: status %d: %s", segment, rec.Code, body)
		}
	})
}

// requireProblem checks that rec is an RFC 9457 problem whose status and type agree with its
// code, and returns it.
func requireProblem(t *testing.T, rec *httptest.ResponseRecorder) httpapi.Problem {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != httpapi.ProblemContentType {
		t.Fatalf("status %d with Content-Type %q: %s", rec.Code, ct, rec.Body)
	}
	var p httpapi.Problem
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("status %d: the problem does not decode: %v", rec.Code, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("status %d: data after the problem", rec.Code)
	}
	if p.Status != rec.Code || p.Code == "" || p.Type != "urn:library:problem:"+string(p.Code) || p.Detail == "" {
		t.Fatalf("status %d: problem %+v", rec.Code, p)
	}
	return p
}
