package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/httpapi"
)

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
