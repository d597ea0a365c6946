// Package strictjson decodes a request's body, one JSON object, into a struct, strictly: no
// unknown field, no field named in another case or given twice, nothing after the object, and
// valid UTF-8; each refusal an *errs.Error that says what was wrong. A body whose fields are all
// plain (strings, numbers, bools) takes a fast path (decodePlainly) that decodes exactly what
// the strict decoder would, with a fraction of its allocations.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"library/internal/errs"
)

// Decode decodes body into dst, whose type's fields are fields, or says what is wrong with it.
func Decode(body []byte, dst any, fields Fields) error {
	if err := checkBody(body); err != nil {
		return err
	}
	if decodePlainly(body, dst, fields) {
		return nil
	}
	return decodeStrictly(body, dst, fields)
}

// checkBody refuses a body that is not a JSON object in UTF-8 at first sight.
func checkBody(body []byte) error {
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
	return nil
}

// decodeStrictly decodes body into dst, and says what is wrong with it when it does not decode.
func decodeStrictly(body []byte, dst any, fields Fields) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errs.E(errs.InvalidRequest, "the body must hold a single JSON object and nothing after it")
	}
	return checkFieldNames(body, fields)
}

// checkFieldNames refuses what encoding/json lets through: a field name that matches only when
// case is ignored ("Amount" for "amount"), and a field given twice. Request bodies are flat
// objects, so only the top level is checked. body is known to be one valid JSON object.
func checkFieldNames(body []byte, fields Fields) error {
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
		if _, ok := fields.names[key]; !ok {
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

// Fields are what decoding needs to know of a body's type: found once (FieldsOf), as a route
// knows its body's, not on every request.
type Fields struct {
	// names are the JSON names of the struct's fields, as encoding/json names them, each with
	// its place among them.
	names map[string]int
	// plain: every field is a string, a number or a bool, or a pointer to one, so that
	// encoding/json's Unmarshal refuses no unknown field that the strict decoder would (it
	// refuses them in nested objects too).
	plain bool
}

// FieldsOf returns the fields of a struct type, or of what a pointer type points to.
func FieldsOf(t reflect.Type) Fields {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	f := Fields{names: make(map[string]int), plain: t.Kind() == reflect.Struct}
	if t.Kind() != reflect.Struct {
		return f
	}
	for i := range t.NumField() {
		field := t.Field(i)
		if !field.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = field.Name
		}
		f.names[name] = len(f.names)
		f.plain = f.plain && isPlain(field.Type) && !field.Anonymous
	}
	return f
}

// isPlain reports whether t is a string, a number or a bool, or a pointer to one.
func isPlain(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
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
