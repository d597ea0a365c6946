package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"library/internal/errs"
	"library/internal/httpapi/strictjson"
)

// DecodeJSON reads a request body that must be exactly one JSON object matching dst: no
// unknown fields, no trailing data, valid UTF-8, at most MaxBodyBytes, sent as
// application/json. Its errors are *errs.Error values that say what was wrong.
func DecodeJSON(r *http.Request, dst any) error {
	return decodeJSON(r, dst, strictjson.FieldsOf(reflect.TypeOf(dst)))
}

// decodeJSON is DecodeJSON with dst's fields known already, as a route knows its body's.
func decodeJSON(r *http.Request, dst any, fields strictjson.Fields) error {
	if err := checkContentType(r.Header.Values("Content-Type")); err != nil {
		return err
	}
	if enc := r.Header.Values("Content-Encoding"); len(enc) > 1 || len(enc) == 1 && !strings.EqualFold(enc[0], "identity") {
		return errs.E(errs.UnsupportedMediaType, "send the body without Content-Encoding")
	}
	if r.ContentLength > MaxBodyBytes {
		return errs.E(errs.PayloadTooLarge, "the body is larger than %d bytes", MaxBodyBytes)
	}
	// Read into a buffer used again: what is decoded from the body never holds on to its bytes
	// (encoding/json copies, and json.Unmarshaler must).
	buf := getBuffer()
	defer putBuffer(buf)
	_, err := buf.ReadFrom(r.Body)
	body := buf.Bytes()
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return errs.E(errs.PayloadTooLarge, "the body is larger than %d bytes", tooLarge.Limit)
		}
		return errs.Wrap(errs.InvalidRequest, err, "the body could not be read")
	}
	return strictjson.Decode(body, dst, fields)
}

func checkContentType(headers []string) error {
	unsupported := func() error {
		return errs.E(errs.UnsupportedMediaType, "send the body with one Content-Type: application/json")
	}
	if len(headers) != 1 {
		return unsupported()
	}
	if headers[0] == "application/json" {
		return nil // what nearly every client sends: no parameters to parse
	}
	mediaType, params, err := mime.ParseMediaType(headers[0])
	if err != nil {
		return unsupported()
	}
	isJSON := mediaType == "application/json" ||
		strings.HasPrefix(mediaType, "application/") && strings.HasSuffix(mediaType, "+json")
	if !isJSON {
		return unsupported()
	}
	if charset, ok := params["charset"]; ok && !strings.EqualFold(charset, "utf-8") {
		return errs.E(errs.UnsupportedMediaType, "the body must be UTF-8")
	}
	return nil
}

// Decoder decodes request bodies of one type as DecodeJSON does, with what it needs to know of
// the type (its fields) learnt once, when it is made, not on every request.
type Decoder[T any] struct{ fields strictjson.Fields }

// NewDecoder returns the decoder of T's request bodies.
func NewDecoder[T any]() Decoder[T] {
	return Decoder[T]{fields: strictjson.FieldsOf(reflect.TypeFor[T]())}
}

// Decode decodes r's body into dst, as DecodeJSON does.
func (d Decoder[T]) Decode(r *http.Request, dst *T) error { return decodeJSON(r, dst, d.fields) }
