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

	"library/internal/testkit/apitest"
	"library/web"
)

// The services the browser talks to are started as the HTTP tests start theirs
// (internal/testkit/apitest): fast background waits, and the ADMIN_TOKEN adminToken.
const adminToken = apitest.AdminToken

var (
	fast         = apitest.FastBackground
	startService = apitest.StartService
)

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

// exchange is one request that went through a balancer, and its answer; At is when it came.
type exchange struct {
	Method, URI, Backend string
	Status               int
	At                   time.Time
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
		at := time.Now()
		backend := writes
		if req.Method == http.MethodGet || req.Method == http.MethodHead {
			backend = reads
		}
		rec := &statusRecorder{ResponseWriter: rw, status: http.StatusOK}
		proxy.ServeHTTP(rec, req)
		b.mu.Lock()
		b.seen = append(b.seen, exchange{Method: req.Method, URI: req.URL.RequestURI(), Backend: backend, Status: rec.status, At: at})
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
