package httpapi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"library/internal/auth"
	"library/internal/errs"
	"library/internal/httpapi"
)

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
