package web_test

// The DevTools Fetch domain pauses chosen requests of a tab at the response stage: the service
// has answered, and the browser has not yet handed the answer to the page. A test then lets the
// answer through, holds it, or fails the request, so that the page sees a network error for a
// request the service did carry out, as when a connection drops on the way back. At the request
// stage (interceptRequests) a test may instead change the request's Authorization before it
// leaves, so that the service itself refuses the token, as it refuses an expired one.

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// intercepted is one request paused at the response stage.
type intercepted struct {
	ID             fetch.RequestID
	Method         string
	URL            string
	IdempotencyKey string
	Authorization  string      // as the page sent it
	Status         int64       // the service's answer (0 at the request stage)
	Header         http.Header // the service's answer's headers
}

// verdict says what to do with a paused answer: let it through (the zero value), fail it as a
// lost connection, or hold it until the channel is closed and then let it through. At the
// request stage, authorization (when not "") replaces the request's Authorization header.
type verdict struct {
	fail          bool
	hold          <-chan struct{}
	authorization string
}

// interceptor pauses a tab's requests whose URL matches a pattern, at the response stage, or
// at the request stage when atRequest.
type interceptor struct {
	tb        *tab
	decide    func(n int, r intercepted) verdict
	atRequest bool

	mu   sync.Mutex
	seen []intercepted
}

// intercept starts pausing the tab's requests to URLs matching pattern (* is any text) at the
// response stage; decide is asked about the nth one (from 0). It must be called before the page
// sends them.
func intercept(tb *tab, pattern string, decide func(n int, r intercepted) verdict) *interceptor {
	tb.t.Helper()
	return startIntercepting(tb, &interceptor{tb: tb, decide: decide}, pattern)
}

// interceptRequests is intercept at the request stage: before the request leaves the browser.
func interceptRequests(tb *tab, pattern string, decide func(n int, r intercepted) verdict) *interceptor {
	tb.t.Helper()
	return startIntercepting(tb, &interceptor{tb: tb, decide: decide, atRequest: true}, pattern)
}

func startIntercepting(tb *tab, in *interceptor, pattern string) *interceptor {
	tb.t.Helper()
	stage := fetch.RequestStageResponse
	if in.atRequest {
		stage = fetch.RequestStageRequest
	}
	events := chromedp.Events(tb.ctx, fetch.RequestPaused)
	_, err := chromedp.Call(tb.ctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: pattern, RequestStage: stage}},
	})
	if err != nil {
		tb.t.Fatalf("intercept %s: %v", pattern, err)
	}
	tb.goroutines.Go(func() {
		for ev, err := range events {
			if err != nil {
				return // the tab closed
			}
			in.handle(ev)
		}
	})
	return in
}

func (in *interceptor) handle(ev fetch.EventRequestPaused) {
	r := intercepted{ID: ev.RequestID, Status: ev.ResponseStatusCode, Header: http.Header{}}
	if ev.Request != nil {
		r.Method, r.URL = ev.Request.Method, ev.Request.URL
		r.IdempotencyKey = header(ev.Request.Headers, "Idempotency-Key")
		r.Authorization = header(ev.Request.Headers, "Authorization")
	}
	for _, h := range ev.ResponseHeaders {
		r.Header.Add(h.Name, h.Value)
	}
	in.mu.Lock()
	n := len(in.seen)
	in.seen = append(in.seen, r)
	in.mu.Unlock()

	v := in.decide(n, r)
	if in.atRequest {
		in.continueRequest(ev, v.authorization)
		return
	}
	if v.fail {
		_, _ = chromedp.Call(in.tb.ctx, fetch.FailRequest, fetch.FailRequestParams{
			RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset,
		})
		return
	}
	if v.hold == nil {
		in.let(ev.RequestID)
		return
	}
	in.tb.goroutines.Go(func() {
		select {
		case <-v.hold:
			in.let(ev.RequestID)
		case <-in.tb.ctx.Done():
		}
	})
}

func (in *interceptor) let(id fetch.RequestID) {
	_, _ = chromedp.Call(in.tb.ctx, fetch.ContinueResponse, fetch.ContinueResponseParams{RequestID: id})
}

// continueRequest sends a request paused at the request stage on, with its Authorization
// replaced when authorization is not "".
func (in *interceptor) continueRequest(ev fetch.EventRequestPaused, authorization string) {
	params := fetch.ContinueRequestParams{RequestID: ev.RequestID}
	if authorization != "" && ev.Request != nil {
		for name, value := range ev.Request.Headers {
			if !strings.EqualFold(name, "Authorization") {
				params.Headers = append(params.Headers, &fetch.HeaderEntry{Name: name, Value: fmt.Sprint(value)})
			}
		}
		params.Headers = append(params.Headers, &fetch.HeaderEntry{Name: "Authorization", Value: authorization})
	}
	_, _ = chromedp.Call(in.tb.ctx, fetch.ContinueRequest, params)
}

// requests returns the paused requests so far, in order.
func (in *interceptor) requests() []intercepted {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]intercepted(nil), in.seen...)
}

// waitRequests waits until at least n requests were paused, and returns them.
func (in *interceptor) waitRequests(n int) []intercepted {
	in.tb.t.Helper()
	in.tb.waitFor(fmt.Sprintf("%d intercepted requests", n), func() bool { return len(in.requests()) >= n })
	return in.requests()
}

// header is a request header by name, in any case.
func header(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return fmt.Sprint(v)
		}
	}
	return ""
}
