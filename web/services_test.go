package web_test

// What the browser talks to: the real service started in this process (app.New and Run, the
// production wiring, as internal/app's tests do), a load balancer in front of two replicas, and
// a server of the web app's files alone, for a page from another origin.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/app"
	"library/internal/processor"
	"library/web"
)

// adminToken is the ADMIN_TOKEN of every service the tests start.
const adminToken = "test-admin-token"

// fast shortens the service's background waits, so that leases move and processors catch up
// within milliseconds.
func fast(cfg app.Config) app.Config {
	cfg.AdminToken = adminToken
	cfg.Processors = processor.Options{
		PollInterval: 50 * time.Millisecond,
		Retry:        processor.Backoff{Attempts: 3, First: 10 * time.Millisecond, Max: 40 * time.Millisecond},
		RetakeDelay:  200 * time.Millisecond,
	}
	cfg.LeaseRetryInterval = 50 * time.Millisecond
	cfg.LeaseTiming = processor.LeaseTiming{CheckInterval: 200 * time.Millisecond, CheckTimeout: 500 * time.Millisecond}
	return cfg
}

// startService runs the service with cfg on 127.0.0.1 until the test ends, and returns its base
// URL. Its log is shown when the test fails.
func startService(t *testing.T, cfg app.Config) string {
	t.Helper()
	cfg.HTTPAddr = "127.0.0.1:0"
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("service %s log:\n%s", cfg.ReplicaID, logs.String())
		}
	})
	a, err := app.New(context.Background(), cfg, logger)
	if err != nil {
		t.Fatalf("app.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return within 30s of its context ending")
		}
	})
	return "http://" + a.Addr()
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var client = &http.Client{Timeout: 30 * time.Second}

// callAPI sends a request with a JSON body (nil: none) and headers as name, value pairs, and
// returns the status and body; it fails the test when the request can't be made.
func callAPI(t *testing.T, method, url string, body any, headers ...string) (int, []byte) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, reader)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// mustCall is callAPI that fails the test unless the status is one of want.
func mustCall(t *testing.T, method, url string, body any, want ...int) []byte {
	t.Helper()
	status, b := callAPI(t, method, url, body)
	for _, w := range want {
		if status == w {
			return b
		}
	}
	t.Fatalf("%s %s: %d %s, want %v", method, url, status, b, want)
	return nil
}

// addBooks adds books through the API at base: each is "id|title|author".
func addBooks(t *testing.T, base string, books ...string) {
	t.Helper()
	for _, b := range books {
		f := strings.Split(b, "|")
		mustCall(t, http.MethodPost, base+"/books", map[string]string{"id": f[0], "title": f[1], "author": f[2]}, http.StatusCreated)
	}
}

// countEvents counts the events of type in stream, in the log of the database db.
func countEvents(t *testing.T, db *pgxpool.Pool, stream, typ string) int {
	t.Helper()
	var n int
	err := db.QueryRow(context.Background(),
		`SELECT count(*) FROM events WHERE stream_id = $1 AND type = $2`, stream, typ).Scan(&n)
	if err != nil {
		t.Fatalf("count %s events of %s: %v", typ, stream, err)
	}
	return n
}

// exchange is one request that went through a balancer, and its answer.
type exchange struct {
	Method, URI, Backend string
	Status               int
}

// balancer is a load balancer in front of two replicas: reads (GET, HEAD) go to one, every
// other request to the other, so that a page that writes through it reads from the replica it
// did not write to. The page itself is read from the reads' replica.
type balancer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []exchange
}

func newBalancer(t *testing.T, writes, reads string) *balancer {
	t.Helper()
	w, err := url.Parse(writes)
	if err != nil {
		t.Fatal(err)
	}
	r, err := url.Parse(reads)
	if err != nil {
		t.Fatal(err)
	}
	b := &balancer{}
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	proxy := &httputil.ReverseProxy{Transport: transport, Rewrite: func(pr *httputil.ProxyRequest) {
		target := w
		if pr.In.Method == http.MethodGet || pr.In.Method == http.MethodHead {
			target = r
		}
		pr.SetURL(target)
	}}
	b.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		backend := writes
		if req.Method == http.MethodGet || req.Method == http.MethodHead {
			backend = reads
		}
		rec := &statusRecorder{ResponseWriter: rw, status: http.StatusOK}
		proxy.ServeHTTP(rec, req)
		b.mu.Lock()
		b.seen = append(b.seen, exchange{Method: req.Method, URI: req.URL.RequestURI(), Backend: backend, Status: rec.status})
		b.mu.Unlock()
	}))
	t.Cleanup(b.Close)
	return b
}

// exchanges returns what went through the balancer so far whose path starts with prefix.
func (b *balancer) exchanges(method, prefix string) []exchange {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []exchange
	for _, e := range b.seen {
		if e.Method == method && strings.HasPrefix(e.URI, prefix) {
			out = append(out, e)
		}
	}
	return out
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// uiServer serves the web app's files alone, as a host other than the service would: its
// config.js names the API to talk to, as such a host's replaced file does.
type uiServer struct {
	*httptest.Server
	api atomic.Value // string: the API's base URL
}

func newUIServer(t *testing.T) *uiServer {
	t.Helper()
	u := &uiServer{}
	files := web.Handler(nil)
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == web.Prefix+"config.js" {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = fmt.Fprintf(w, "export const apiBase = %q;\n", u.api.Load())
			return
		}
		files.ServeHTTP(w, r)
	}))
	u.api.Store("")
	t.Cleanup(u.Close)
	return u
}

// setAPI points the app at the API at base.
func (u *uiServer) setAPI(base string) { u.api.Store(base) }
