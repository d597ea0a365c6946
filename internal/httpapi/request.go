package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/validate"
)

// MaxBodyBytes is the largest request body the service reads.
const MaxBodyBytes = 1 << 20

// IdempotencyKeyHeader names the request header that carries a command id.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayedHeader is set to "true" on an answer that repeats an earlier one.
const ReplayedHeader = "Idempotent-Replayed"

// DecodeJSON reads a request body that must be exactly one JSON object matching dst: no
// unknown fields, no trailing data, valid UTF-8, at most MaxBodyBytes, sent as
// application/json. Its errors are *errs.Error values that say what was wrong.
func DecodeJSON(r *http.Request, dst any) error {
	if err := checkContentType(r.Header.Values("Content-Type")); err != nil {
		return err
	}
	if enc := r.Header.Values("Content-Encoding"); len(enc) > 1 || len(enc) == 1 && !strings.EqualFold(enc[0], "identity") {
		return errs.E(errs.UnsupportedMediaType, "send the body without Content-Encoding")
	}
	if r.ContentLength > MaxBodyBytes {
		return errs.E(errs.PayloadTooLarge, "the body is larger than %d bytes", MaxBodyBytes)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return errs.E(errs.PayloadTooLarge, "the body is larger than %d bytes", tooLarge.Limit)
		}
		return errs.Wrap(errs.InvalidRequest, err, "the body could not be read")
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return errs.E(errs.InvalidRequest, "the body is empty; send a JSON object")
	}
	if trimmed[0] != '{' {
		return errs.E(errs.InvalidRequest, "the body must be a JSON object")
	}
	if !utf8.Valid(body) {
		return errs.E(errs.InvalidRequest, "the body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errs.E(errs.InvalidRequest, "the body must hold a single JSON object and nothing after it")
	}
	return checkFieldNames(body, dst)
}

// checkFieldNames refuses what encoding/json lets through: a field name that matches only when
// case is ignored ("Amount" for "amount"), and a field given twice. Request bodies are flat
// objects, so only the top level is checked. body is known to be one valid JSON object.
func checkFieldNames(body []byte, dst any) error {
	names := fieldNames(reflect.TypeOf(dst))
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // the opening brace
		return errs.Wrap(errs.InvalidRequest, err, "the body must be a JSON object")
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return errs.Wrap(errs.InvalidRequest, err, "the body is not valid JSON")
		}
		key, _ := tok.(string)
		if !names[key] {
			return errs.E(errs.InvalidRequest, "the body has an unknown field %q (field names are case-sensitive)", key)
		}
		if seen[key] {
			return errs.E(errs.InvalidRequest, "the body has the field %q twice", key)
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return errs.Wrap(errs.InvalidRequest, err, "the body is not valid JSON")
		}
	}
	return nil
}

// fieldNames returns the JSON names of a struct type's fields, as encoding/json names them.
func fieldNames(t reflect.Type) map[string]bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	names := make(map[string]bool)
	if t.Kind() != reflect.Struct {
		return names
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names[name] = true
	}
	return names
}

func checkContentType(headers []string) error {
	unsupported := errs.E(errs.UnsupportedMediaType, "send the body with one Content-Type: application/json")
	if len(headers) != 1 {
		return unsupported
	}
	mediaType, params, err := mime.ParseMediaType(headers[0])
	if err != nil {
		return unsupported
	}
	isJSON := mediaType == "application/json" ||
		strings.HasPrefix(mediaType, "application/") && strings.HasSuffix(mediaType, "+json")
	if !isJSON {
		return unsupported
	}
	if charset, ok := params["charset"]; ok && !strings.EqualFold(charset, "utf-8") {
		return errs.E(errs.UnsupportedMediaType, "the body must be UTF-8")
	}
	return nil
}

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return errs.E(errs.InvalidRequest, "the body is not valid JSON (at byte %d)", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errs.E(errs.InvalidRequest, "the body is not valid JSON: it ends too early")
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return errs.E(errs.InvalidRequest, "the body must be a JSON object")
		}
		given := typeErr.Value // "string", "number 3.5", "bool", "array", "object"
		if strings.HasPrefix(given, "number") {
			given = "that number"
		} else {
			given = "a JSON " + given
		}
		return errs.E(errs.InvalidRequest, "%s must be %s, not %s", typeErr.Field, jsonKind(typeErr.Type), given)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errs.E(errs.InvalidRequest, "the body has an unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		return errs.Wrap(errs.InvalidRequest, err, "the body does not match the expected fields")
	}
}

// jsonKind names the JSON value a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

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
	invalid := errs.E(errs.InvalidRequest, "Idempotency-Key must be 1 to 255 printable ASCII characters, or such a string in double quotes")
	key := value
	if strings.HasPrefix(value, `"`) {
		unquoted, ok := unquoteStructuredString(value)
		if !ok {
			return "", invalid
		}
		key = unquoted
	}
	if len(key) == 0 || len(key) > 255 {
		return "", invalid
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", invalid
		}
	}
	return key, nil
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

// CommandOrigin returns where the command in a request comes from: its Idempotency-Key, if it
// has one, and its request id.
func CommandOrigin(r *http.Request) (aggregate.Origin, error) {
	key, err := IdempotencyKey(r)
	if err != nil {
		return aggregate.Origin{}, err
	}
	actor := auth.AccessFrom(r.Context()).Actor()
	return aggregate.Origin{CommandID: key, CorrelationID: RequestID(r.Context()),
		Actor: eventstore.Actor{Subject: actor.Subject, Role: string(actor.Role), Issuer: actor.Issuer}}, nil
}
