package apitest

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// BadIDs are path identifiers the contract refuses with 400 InvalidRequest, as they appear
// in a URL.
var BadIDs = map[string]string{
	"leading dash":      "-x",
	"129 characters":    strings.Repeat("a", 129),
	"encoded space":     "a%20b",
	"encoded slash":     "a%2Fb",
	"leading dot":       ".x",
	"encoded non-ASCII": "caf%C3%A9",
}

// RequireBadPathIDs checks that every bad identifier in the path is 400 InvalidRequest,
// never 404 or 500. path has one %s where the identifier goes; body is sent when not nil.
func RequireBadPathIDs(t *testing.T, a *API, method, path string, body any, headers ...string) {
	t.Helper()
	for name, id := range BadIDs {
		t.Run("bad path id/"+name, func(t *testing.T) {
			r := a.Call(t, method, strings.Replace(path, "%s", id, 1), body, headers...)
			RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
		})
	}
}

// RequireBodyErrors checks the rules every JSON body follows (see "General"): malformed,
// empty, non-object, trailing data, unknown fields and invalid UTF-8 are 400 InvalidRequest;
// a body that is not JSON by Content-Type is 415; a body over 1 MiB is 413. valid is a body the
// endpoint accepts, as a JSON object.
func RequireBodyErrors(t *testing.T, a *API, method, path string, valid string, headers ...string) {
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
		"invalid UTF-8":    WithInvalidUTF8(valid),
	}
	for name, body := range bad {
		t.Run("body/"+name, func(t *testing.T) {
			r := a.Send(t, method, path, []byte(body), headers...)
			RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
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
			r := a.Send(t, method, path, []byte(valid), h...)
			RequireProblem(t, r, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
		})
	}
	t.Run("413/one byte over 1 MiB", func(t *testing.T) {
		r := a.Send(t, method, path, BodyOfSize(1<<20+1), headers...)
		RequireProblem(t, r, http.StatusRequestEntityTooLarge, "PayloadTooLarge")
	})
	t.Run("exactly 1 MiB is read, not refused for its size", func(t *testing.T) {
		// The same object one byte shorter is read and refused for its unknown field.
		r := a.Send(t, method, path, BodyOfSize(1<<20), headers...)
		RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
	})
}

// WithInvalidUTF8 puts two bytes that are not UTF-8 at the start of the first string value of
// the object valid, or in an extra member when it has no string value.
func WithInvalidUTF8(valid string) string {
	if i := strings.Index(valid, `":"`); i >= 0 {
		return valid[:i+3] + "\xff\xfe" + valid[i+3:]
	}
	return valid[:len(valid)-1] + `,"x":"` + "\xff\xfe" + `"}`
}

// BodyOfSize is a JSON object of exactly n bytes with one unknown field.
func BodyOfSize(n int) []byte {
	const prefix, suffix = `{"padding":"`, `"}`
	return []byte(prefix + strings.Repeat("a", n-len(prefix)-len(suffix)) + suffix)
}
