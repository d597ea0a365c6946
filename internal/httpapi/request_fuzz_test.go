package httpapi_test

// Fuzz targets for what the HTTP edge reads from a request before any command runs: the
// Idempotency-Key header, JSON bodies and identifiers in paths. Each checks the rule docs/api.md
// states, not only that nothing panics. The seeds below and those in testdata/fuzz run with every
// `go test`; `go test -fuzz` explores from them.

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
