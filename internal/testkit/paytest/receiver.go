package paytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"
)

// Received is one delivery a Receiver got.
type Received struct {
	// Event is the delivery as stripe-go's webhook.ConstructEvent read it, when Err is nil.
	Event     stripe.Event
	Err       error
	Payload   []byte
	Signature string
	// Status is what the Receiver answered: 0 when it closed the connection instead.
	Status int
	At     time.Time
}

// Receiver is a webhook endpoint for tests, on 127.0.0.1 at a free port until the test ends.
// It checks every delivery with webhook.ConstructEvent and the webhook secret, keeps it, and
// answers 200 (400 to one whose signature fails), or what Fail asks.
type Receiver struct {
	// URL is where to send webhooks.
	URL    string
	t      testing.TB
	secret string

	mu       sync.Mutex
	received []Received
	failing  []int // the answers still to give instead of 200, first first
	inFlight int
	maxIn    int
	gate     int           // with Gate: requests wait until this many are in flight
	opened   chan struct{} // closed when gate requests are in flight
}

// NewReceiver serves a Receiver for the rest of the test.
func NewReceiver(t testing.TB, webhookSecret string) *Receiver {
	t.Helper()
	r := &Receiver{t: t, secret: webhookSecret}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/webhooks/stripe"
	return r
}

// Fail answers the next deliveries with these statuses, one each, before answering 200 again;
// a status of 0 closes the connection without an answer.
func (r *Receiver) Fail(statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failing = append(r.failing, statuses...)
}

// Gate holds every delivery until n are under way at once (or Wait has passed, for a test that
// will fail): a delivery that is not sent at the same time as others waits the whole Wait.
func (r *Receiver) Gate(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gate, r.opened = n, make(chan struct{})
}

// MaxInFlight is the most deliveries that were under way at once.
func (r *Receiver) MaxInFlight() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxIn
}

// Received are the deliveries so far, in the order they arrived.
func (r *Receiver) Received() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.received...)
}

// WaitReceived waits until n deliveries have arrived, and returns them all.
func (r *Receiver) WaitReceived(n int) []Received {
	r.t.Helper()
	waitFor(r.t, "deliveries received", func() bool { return len(r.Received()) >= n })
	return r.Received()
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	payload, _ := io.ReadAll(req.Body) // a cut body fails the signature below
	sig := req.Header.Get("Stripe-Signature")
	ev, err := webhook.ConstructEvent(payload, sig, r.secret)

	r.mu.Lock()
	r.inFlight++
	r.maxIn = max(r.maxIn, r.inFlight)
	gate, opened := r.gate, r.opened
	if gate > 0 && r.inFlight >= gate {
		close(opened)
		r.gate = 0
	}
	r.mu.Unlock()
	if gate > 0 {
		select {
		case <-opened:
		case <-time.After(Wait):
		}
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight--
	status := http.StatusOK
	if err != nil {
		status = http.StatusBadRequest
	}
	if len(r.failing) > 0 {
		status, r.failing = r.failing[0], r.failing[1:]
	}
	r.received = append(r.received, Received{Event: ev, Err: err, Payload: payload, Signature: sig, Status: status, At: time.Now()})
	if status == 0 {
		panic(http.ErrAbortHandler) // closes the connection without an answer
	}
	w.WriteHeader(status)
}
