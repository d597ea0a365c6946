package devpay

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"

	"library/internal/devpay/keys"
	"library/internal/devpay/wire"
)

const (
	// keyLifetime is how long the answer kept under an idempotency key lasts, as at Stripe.
	keyLifetime = 24 * time.Hour
	// maxKey is the longest idempotency key Stripe takes.
	maxKey = 255
	// maxForm bounds a request's body.
	maxForm = 64 << 10
)

// call is one API request, as an endpoint sees it.
type call struct {
	requestID string
	key       string // the Idempotency-Key of a POST, or ""
	form      url.Values
	id        string // the object's id in the path, if any
}

// result is an endpoint's answer, and whether it is kept under the call's idempotency key:
// it is once the endpoint has begun its work, not when the call's parameters were refused.
type result struct {
	status int
	body   []byte
	keep   bool
}

func ok(body []byte) result { return result{status: http.StatusOK, body: body, keep: true} }

// refused is an answer for parameters the endpoint will not work with: not kept.
func refused(e wire.Error) result { return result{status: http.StatusBadRequest, body: e.Body()} }

// failed is an answer of an endpoint that began its work: kept.
func failed(status int, e wire.Error) result {
	return result{status: status, body: e.Body(), keep: true}
}

// api serves an endpoint: the secret key checked, the form read, and the answer run or
// replayed under the Idempotency-Key, all under s.mu, so that one key's calls never overlap.
func (s *Server) api(endpoint func(c call) result) http.HandlerFunc {
	return s.authorized(func(w http.ResponseWriter, r *http.Request) {
		c := call{requestID: newID("req_"), id: r.PathValue("id")}
		h := w.Header()
		h.Set("Request-Id", c.requestID)
		h.Set("Stripe-Version", stripe.APIVersion)
		form, err := readForm(w, r)
		if err != nil {
			wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Message: err.Error()})
			return
		}
		c.form = form
		if r.Method == http.MethodPost {
			c.key = strings.TrimSpace(r.Header.Get("Idempotency-Key"))
		}
		if len(c.key) > maxKey {
			wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest,
				Message: fmt.Sprintf("Idempotency-Key is too long: it may have at most %d characters.", maxKey)})
			return
		}
		s.mu.Lock()
		res, outcome := s.answer(r.Method+" "+r.URL.Path+"?"+form.Encode(), c, endpoint)
		s.mu.Unlock()
		if c.key != "" {
			h.Set("Idempotency-Key", c.key)
		}
		if outcome == keys.Replayed {
			h.Set("Idempotent-Replayed", "true")
			h.Set("Original-Request", res.RequestID)
		}
		wire.WriteJSON(w, res.Status, res.Body)
	})
}

// answer runs the endpoint, or replays the answer kept under the call's key when the request
// is the same, or refuses a different request with the same key. s.mu is held.
func (s *Server) answer(request string, c call, endpoint func(c call) result) (keys.Answer, keys.Outcome) {
	a, outcome := s.keys.Do(s.now(), c.key, request, func() (keys.Answer, bool) {
		res := endpoint(c)
		return keys.Answer{Status: res.status, Body: res.body, RequestID: c.requestID}, res.keep
	})
	if outcome == keys.Conflict {
		e := refused(wire.Error{Type: wire.IdempotencyError, Message: fmt.Sprintf("Keys for idempotent requests can "+
			"only be used with the same parameters they were first used with. Try using a key other than "+
			"'%s' if you meant to execute a different request.", c.key)})
		return keys.Answer{Status: e.status, Body: e.body}, outcome
	}
	return a, outcome
}

// readForm is a POST's form-encoded body, or a GET's query.
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost {
		return r.URL.Query(), nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/x-www-form-urlencoded" {
			return nil, fmt.Errorf("invalid Content-Type %q: the API takes application/x-www-form-urlencoded", ct)
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return nil, fmt.Errorf("the request's body is not a form of at most %d bytes", maxForm)
	}
	return r.PostForm, nil
}

// Calls is how many API calls were made with an idempotency key, replays and refusals included.
func (s *Server) Calls(idempotencyKey string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys.Calls(idempotencyKey)
}

// CallCounts are the API calls made with each idempotency key.
func (s *Server) CallCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys.CallCounts()
}

// FailRefunds makes the next n refund calls fail with a 500 api_error before anything is
// done: nothing is refunded and nothing is kept under their idempotency keys. A call whose
// key already has an answer replays it and does not count.
func (s *Server) FailRefunds(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing = max(0, n)
}
