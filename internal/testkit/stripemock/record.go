package stripemock

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
)

// Request is one request a Recorder passed on, as the client sent it.
type Request struct {
	Method string
	// Path is the URL's path, decoded.
	Path   string
	Header http.Header
	// Form holds the parameters: the query's, and a form-encoded body's. Stripe's nested
	// parameters keep their bracketed names: line_items[0][price_data][unit_amount].
	Form url.Values
}

// Recorder is a proxy that records every request before it passes it on.
type Recorder struct {
	// URL is the proxy's base URL: give it to the client in place of the server's.
	URL string

	mu       sync.Mutex
	requests []Request
}

// Record starts a recording proxy to the server at target (normally URL(t)) on 127.0.0.1. It
// stops when the test ends.
func Record(t testing.TB, target string) *Recorder {
	t.Helper()
	to, err := url.Parse(target)
	if err != nil {
		t.Fatalf("stripemock: record: %v", err)
	}
	r := &Recorder{}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(to) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		form := req.URL.Query()
		if parsed, err := url.ParseQuery(string(body)); err == nil {
			for k, v := range parsed {
				form[k] = append(form[k], v...)
			}
		}
		r.mu.Lock()
		r.requests = append(r.requests, Request{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Form: form})
		r.mu.Unlock()
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Requests returns the requests recorded so far, oldest first.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}

// Last returns the last request recorded, failing the test when there is none.
func (r *Recorder) Last(t testing.TB) Request {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.requests) == 0 {
		t.Fatal("stripemock: no request was recorded")
	}
	return r.requests[len(r.requests)-1]
}
