package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"library/internal/errs"
	"library/internal/validate"
)

// MaxBodyBytes is the largest request body the service reads.
const MaxBodyBytes = 1 << 20

// IdempotencyKeyHeader names the request header that carries a command id.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayedHeader is set to "true" on an answer that repeats an earlier one.
const ReplayedHeader = "Idempotent-Replayed"

// PathID returns the path parameter name, percent-decoded once and checked as an identifier.
// A client may encode the characters an identifier allows ("alice%40example.org"); an encoded
// slash decodes to a character identifiers don't allow.
func PathID(r *http.Request, name string) (string, error) {
	id := chi.URLParam(r, name)
	if r.URL.RawPath != "" {
		// chi routed on the escaped path, so the parameter is still escaped. (Otherwise it
		// routed on the decoded path, and decoding again would turn "%2540" into "@".)
		var err error
		if id, err = url.PathUnescape(id); err != nil {
			return "", errs.E(errs.InvalidRequest, "%s is not a well-formed path segment", name)
		}
	}
	if err := validate.ID(name, id); err != nil {
		return "", err
	}
	return id, nil
}

// IdempotencyKey returns the request's Idempotency-Key, "" when it has none. A key is 1 to 255
// printable ASCII characters; a structured-field string ("abc") is accepted and unquoted.
func IdempotencyKey(r *http.Request) (string, error) {
	values := r.Header.Values(IdempotencyKeyHeader)
	switch len(values) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", errs.E(errs.InvalidRequest, "send one Idempotency-Key header, not %d", len(values))
	}
	key, err := ParseIdempotencyKey(values[0])
	if err != nil {
		return "", err
	}
	return key, nil
}

// ParseIdempotencyKey checks and unquotes the value of an Idempotency-Key header.
func ParseIdempotencyKey(value string) (string, error) {
	key := value
	if strings.HasPrefix(value, `"`) {
		unquoted, ok := unquoteStructuredString(value)
		if !ok {
			return "", invalidKey()
		}
		key = unquoted
	}
	if len(key) == 0 || len(key) > 255 {
		return "", invalidKey()
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", invalidKey()
		}
	}
	return key, nil
}

// invalidKey is the refusal of a malformed Idempotency-Key, made only when one is refused.
func invalidKey() error {
	return errs.E(errs.InvalidRequest, "Idempotency-Key must be 1 to 255 printable ASCII characters, or such a string in double quotes")
}

// unquoteStructuredString parses an RFC 8941 sf-string: printable ASCII in double quotes, where
// only \" and \\ are escapes.
func unquoteStructuredString(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	inner := s[1 : len(s)-1]
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		switch {
		case c == '\\':
			i++
			if i == len(inner) || (inner[i] != '"' && inner[i] != '\\') {
				return "", false
			}
			b.WriteByte(inner[i])
		case c == '"', c < 0x20, c > 0x7e:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// QueryParams reads a request's query string, refusing one that does not decode, a parameter not in
// allowed (unknown says which are), and one given twice. URL.Query would drop a pair it can't
// decode without a word, and a filter left out would list more than was asked.
func QueryParams(r *http.Request, allowed []string, unknown string) (url.Values, error) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "the query string is malformed: use & between parameters and %%XX escapes")
	}
	for name, values := range query {
		switch {
		case !slices.Contains(allowed, name):
			return nil, errs.E(errs.InvalidRequest, "unknown query parameter; %s", unknown)
		case len(values) > 1:
			return nil, errs.E(errs.InvalidRequest, "%s may be given once", name)
		}
	}
	return query, nil
}
