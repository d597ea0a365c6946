package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/app"
)

// What a keyed payment allocates, from its request to its answer, through the whole handler
// (every middleware, the command, the in-memory store), as TestKeyedPaymentAllocations counts
// it: the figures of its last runs, when they were last lowered. Lower them when a change
// allocates less; raise them only with a commit that says why the request must allocate more.
// (Before the request path was trimmed they were 131 and 142.)
const (
	paymentAllocs     = 58 // go test
	paymentAllocsRace = 74 // go test -race, whose sync.Pool drops some of what is put back
)

// allocsGrowth is how far above its figure a payment may go before the test fails.
const allocsGrowth = 1.20

// TestKeyedPaymentAllocations keeps what a keyed payment allocates from growing unnoticed:
// allocations are the garbage collector's work, which the service pays for on every request.
// It counts the allocations of POST /accounts/{id}/payments with a fresh Idempotency-Key,
// averaged over many, through the service's handler with the memory store, and fails when
// they are more than allocsGrowth times paymentAllocs. The count is of the handler alone: the
// service is built but not run, so that no background work (the processors that read the log)
// allocates beside it, and the requests are made before the count starts. A count is not a
// time: it is the same from run to run, whatever else the machine does.
//
// It does not run in parallel: testing.AllocsPerRun counts every goroutine's allocations.
func TestKeyedPaymentAllocations(t *testing.T) {
	h := quietHandler(t)
	const accounts, runs = 64, 2000
	for i := range accounts {
		fineOver(t, h, i)
	}
	payments := make([]*http.Request, runs+1) // AllocsPerRun runs once more, to warm up
	for i := range payments {
		payments[i] = paymentRequest(i%accounts, fmt.Sprintf("allocs-%d", i))
	}
	w := newBareWriter()
	next := 0
	got := testing.AllocsPerRun(runs, func() {
		w.reset()
		h.ServeHTTP(w, payments[next])
		next++
		if w.status != http.StatusCreated {
			t.Fatalf("payment %d: status %d: %s", next, w.status, w.body)
		}
	})
	want := float64(paymentAllocs)
	if raceEnabled {
		want = paymentAllocsRace
	}
	t.Logf("a keyed payment allocates %.1f times (race detector: %v); the baseline is %.0f, the limit %.0f",
		got, raceEnabled, want, want*allocsGrowth)
	if got > want*allocsGrowth {
		t.Errorf("a keyed payment allocates %.1f times, more than %.0f%% of the %.0f it did (race detector: %v): "+
			"find what allocates (go test -run '^$' -bench PaymentsOverHTTP -memprofile) and avoid it, or, if it must, "+
			"raise its figure and say why", got, allocsGrowth*100, want, raceEnabled)
	}
}

// quietHandler is the service's handler, with the memory store, a log as the benchmark's (every
// line formatted, then dropped) and a limit on requests too high to reach but counted, as in
// production, built but not run.
func quietHandler(t *testing.T) http.Handler {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	a, err := app.New(context.Background(), app.Config{HTTPAddr: "127.0.0.1:0", RateLimit: 1 << 30}, logger)
	require.NoError(t, err)
	t.Cleanup(func() {
		// Run on an ended context starts and at once shuts down: the listener is closed.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.NoError(t, a.Run(ctx))
	})
	return a.Handler()
}

// fineOver charges account i enough that every payment of the test is taken.
func fineOver(t *testing.T, h http.Handler, i int) {
	t.Helper()
	r := commandRequest(fmt.Sprintf("/accounts/m%d/fines", i), `{"amount":100000000,"reason":"opening balance"}`, "")
	w := newBareWriter()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusCreated, w.status, "body: %s", w.body)
}

func paymentRequest(account int, key string) *http.Request {
	return commandRequest(fmt.Sprintf("/accounts/m%d/payments", account), `{"amount":1}`, key)
}

// commandRequest is a request as the server hands it to the handler, from a client on
// loopback.
func commandRequest(path, body, key string) *http.Request {
	r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1"+path, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	r.RemoteAddr = "127.0.0.1:40000"
	r.RequestURI = path
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	return r
}

// bareWriter is a ResponseWriter that keeps the status and body, reused from one request to the
// next, so that what is counted is the handler's.
type bareWriter struct {
	header http.Header
	status int
	body   []byte
}

func newBareWriter() *bareWriter {
	return &bareWriter{header: http.Header{}, body: make([]byte, 0, 4096)}
}

func (w *bareWriter) reset() {
	clear(w.header)
	w.status, w.body = 0, w.body[:0]
}

func (w *bareWriter) Header() http.Header { return w.header }

func (w *bareWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bareWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, b...)
	return len(b), nil
}
