package web_test

// The operations page sends tokens only to the library's own replicas: the origin that served
// it, and those /config.json names (OPERATIONS_REPLICAS). A replica list kept in the browser's
// storage that names another server, as anything that can write this origin's storage could
// leave there, is not asked anything: no operator's token, no admin token reaches it.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"library/internal/app"
)

// impostor is a server that answers as a library replica holding every lease, and keeps every
// request it gets.
type impostor struct {
	url string
	mu  sync.Mutex
	got []string // "METHOD /path Authorization"
}

func startImpostor(t *testing.T) *impostor {
	t.Helper()
	im := &impostor{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		im.mu.Lock()
		im.got = append(im.got, fmt.Sprintf("%s %s %q", r.Method, r.URL.Path, r.Header.Get("Authorization")))
		im.mu.Unlock()
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		h.Set("Access-Control-Allow-Headers", "Authorization, Accept, Content-Type, Idempotency-Key")
		h.Set("Access-Control-Allow-Methods", "GET, POST")
		h.Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/status":
			var processors []map[string]any
			for _, name := range processors0 {
				processors = append(processors, map[string]any{"name": name, "kind": "outbox", "holdsLease": true,
					"checkpoint": 3, "head": 3, "lag": 0, "parked": 1, "deferred": 0, "inFlight": 0})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"replica": "impostor", "processors": processors})
		default:
			_, _ = w.Write([]byte(`{"requeued":1}`))
		}
	}))
	t.Cleanup(srv.Close)
	im.url = srv.URL
	return im
}

// processors0 are the processors the impostor claims.
var processors0 = []string{"catalog", "notifications", "late-fines"}

func (im *impostor) requests() []string {
	im.mu.Lock()
	defer im.mu.Unlock()
	return append([]string(nil), im.got...)
}

// keepReplicas stores a replica list in the tab's storage, as the page keeps one.
func keepReplicas(tb *tab, replicas ...string) {
	tb.t.Helper()
	list, err := json.Marshal(replicas)
	if err != nil {
		tb.t.Fatal(err)
	}
	if _, err := tb.eval(fmt.Sprintf("(localStorage.setItem('library.replicas', %q), '')", list)); err != nil {
		tb.t.Fatal(err)
	}
}

// Signed in, the page polls /status with the operator's token: only at the library's replicas.
func TestOperationsSendsTheOperatorsTokenToTheLibraryOnly(t *testing.T) {
	t.Parallel()
	base, _ := signedInService(t)
	im := startImpostor(t)

	tb := newTab(t)
	tb.open(base + "/#/books")
	keepReplicas(tb, im.url, base)
	signIn(tb, "oscar")
	tb.goTo("#/operations")
	tb.row("Replicas", base, "State", "up") // drawn once every replica listed has answered
	if got := im.requests(); len(got) != 0 {
		t.Fatalf("a server the page was never told of got %v", got)
	}
	requireAbsent(tb, "rowheader", im.url)
}

// Without sign-in, the admin token typed into the page goes to the library's replica that
// holds the lease, never to a server that claims every lease from the browser's storage.
func TestOperationsSendsTheAdminTokenToTheLibraryOnly(t *testing.T) {
	t.Parallel()
	// The loan's email waits a millisecond for its member's address, then is parked.
	base := startService(t, fast(app.Config{WebUI: true, EmailAddressWait: time.Millisecond}))
	im := startImpostor(t)
	addBooks(t, base, "dune|Dune|Frank Herbert")
	mustCall(t, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-1", "memberId": "alice"}, http.StatusCreated)

	tb := newTab(t)
	tb.open(base + "/#/books")
	keepReplicas(tb, im.url)
	tb.goTo("#/operations")
	tb.row("Background work", "notifications", "Parked", "1")
	tb.get("textbox", "Admin token").fill(adminToken)
	tb.get("button", "Retry parked notifications").click()
	tb.get("status", "Admin action").waitText("1 parked event of notifications sent back to be handled")
	for _, r := range im.requests() {
		if strings.Contains(r, adminToken) {
			t.Fatalf("the admin token went to a server the page was never told of: %v", im.requests())
		}
	}
	if got := im.requests(); len(got) != 0 {
		t.Fatalf("a server the page was never told of got %v", got)
	}
}
