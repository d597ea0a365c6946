package stripepay

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"library/internal/errs"
	"library/internal/testkit/stripemock"
)

// wantCode fails the test unless err carries code, and checks that neither the error nor its
// detail holds the secret key.
func wantCode(t *testing.T, err error, code errs.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := errs.CodeOf(err); got != code {
		t.Errorf("code %s, want %s (%v)", got, code, err)
	}
	if strings.Contains(err.Error(), "sk_") {
		t.Errorf("the error shows an API key: %v", err)
	}
}

// A session Stripe does not have (stripe-mock answers 404 for a path it does not know, as
// Stripe does for an unknown id) is a request refused for its content.
func TestAnUnknownSessionIsInvalid(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	_, err := p.Session(context.Background(), "cs_test_no/such")
	wantCode(t, err, errs.InvalidRequest)
	var se stripeFailure
	if !errors.As(err, &se) || se.status != http.StatusNotFound {
		t.Errorf("cause %v, want Stripe's 404", err)
	}
}

// Parameters Stripe refuses (a real 400 from stripe-mock's check against the OpenAPI
// document) are a request refused for its content, and Stripe's words stay out.
func TestParametersStripeRefusesAreInvalid(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	params := &stripe.CheckoutSessionCreateParams{Mode: stripe.String("no-such-mode")}
	_, err := p.client.V1CheckoutSessions.Create(context.Background(), params)
	if err == nil {
		t.Fatal("the mock accepted a mode that does not exist")
	}
	mapped := fail(err, "start a checkout")
	wantCode(t, mapped, errs.InvalidRequest)
	var se *stripe.Error
	if !errors.As(err, &se) || se.Msg == "" || strings.Contains(mapped.Error(), se.Msg) {
		t.Errorf("mapped %q from Stripe's %q: want its message left out", mapped, se.Msg)
	}
}

// A key Stripe refuses is the service's fault, and the answer, which quotes the Authorization
// header, does not reach the error.
func TestARefusedKeyIsInternalAndNotShown(t *testing.T) {
	t.Parallel()
	const key = "sk_live_notatestkey" // the mock refuses any key but a test-mode one
	p, err := New(Config{SecretKey: key, WebhookSecret: testWebhookSecret, APIURL: stripemock.URL(t)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Session(context.Background(), "cs_test_1")
	wantCode(t, err, errs.Internal)
	if strings.Contains(err.Error(), "notatestkey") {
		t.Errorf("the error shows the key: %v", err)
	}
}

// failingStripe is a Stripe that answers the next requests as told (status and body, in
// Stripe's error format), then passes the rest to stripe-mock. It records each request's
// Idempotency-Key.
type failingStripe struct {
	URL string

	mu      sync.Mutex
	answers []answer
	keys    []string
}

type answer struct {
	status int
	body   string
}

func newFailingStripe(t *testing.T, answers ...answer) *failingStripe {
	t.Helper()
	f := &failingStripe{answers: answers}
	mock, err := url.Parse(stripemock.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(mock) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
		var next *answer
		if len(f.answers) > 0 {
			next, f.answers = &f.answers[0], f.answers[1:]
		}
		f.mu.Unlock()
		if next == nil {
			proxy.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(next.status)
		_, _ = w.Write([]byte(next.body))
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *failingStripe) idempotencyKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys...)
}

const (
	apiError         = `{"error":{"type":"api_error","message":"Something went wrong on Stripe's end."}}`
	rateLimited      = `{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests hit the API too quickly."}}`
	keyInUse         = `{"error":{"type":"invalid_request_error","code":"idempotency_key_in_use","message":"There is currently another in-progress request using this Idempotent Key."}}`
	keyReused        = `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with."}}`
	resourceMissing  = `{"error":{"type":"invalid_request_error","code":"resource_missing","param":"payment_intent","message":"No such payment_intent: 'pi_x'"}}`
	gatewayErrorPage = `<html><body>502 Bad Gateway</body></html>`
)

// Each failure Stripe can answer maps to the code that tells the caller what to do. stripe-go
// retries (with the same key) what is not an answer of Stripe's, such as a proxy's error page;
// Stripe's own errors, 5xx and 409 included, it returns at once (v84.4.1: its Error type
// vetoes them in shouldRetry), for the caller to try again under the same key.
func TestStripesFailuresMapToCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		answers  []answer
		code     errs.Code
		attempts int
	}{
		{"5xx", []answer{{500, apiError}}, errs.Unavailable, 1},
		{"a proxy's page", []answer{{502, gatewayErrorPage}, {502, gatewayErrorPage}, {502, gatewayErrorPage}}, errs.Unavailable, 3},
		{"429 rate limit", []answer{{429, rateLimited}}, errs.Unavailable, 1},
		{"409 key in use", []answer{{409, keyInUse}}, errs.Unavailable, 1},
		{"idempotency error", []answer{{400, keyReused}}, errs.Internal, 1},
		{"no such payment", []answer{{400, resourceMissing}}, errs.InvalidRequest, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			failing := newFailingStripe(t, c.answers...)
			p := newProvider(t, failing.URL)
			_, err := p.StartCheckout(context.Background(), checkoutRequest())
			wantCode(t, err, c.code)
			if strings.Contains(err.Error(), "Something went wrong") || strings.Contains(err.Error(), "No such") || strings.Contains(err.Error(), "Bad Gateway") {
				t.Errorf("Stripe's message reached the error: %v", err)
			}
			if keys := failing.idempotencyKeys(); len(keys) != c.attempts {
				t.Errorf("%d attempts, want %d", len(keys), c.attempts)
			}
		})
	}
}

// A failure stripe-go retries ends in the one session, asked for again under the same key.
func TestARetryAfterAFailureKeepsTheKey(t *testing.T) {
	t.Parallel()
	failing := newFailingStripe(t, answer{502, gatewayErrorPage})
	p := newProvider(t, failing.URL)
	r := checkoutRequest()
	if _, err := p.StartCheckout(context.Background(), r); err != nil {
		t.Fatalf("StartCheckout after one 502: %v", err)
	}
	keys := failing.idempotencyKeys()
	if len(keys) != 2 || keys[0] != r.Key || keys[1] != r.Key {
		t.Errorf("idempotency keys %q, want %q twice", keys, r.Key)
	}
}

// A Stripe that cannot be reached is unavailable.
func TestStripeDownIsUnavailable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	_ = l.Close() // nothing listens there any more: connections are refused
	p := newProvider(t, down)
	_, err = p.Session(context.Background(), "cs_test_1")
	wantCode(t, err, errs.Unavailable)
}

// A Stripe that does not answer is unavailable once the caller's deadline passes, without
// retries past it.
func TestAStripeThatHangsIsUnavailableAtTheDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	p := newProvider(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Session(ctx, "cs_test_1")
	wantCode(t, err, errs.Unavailable)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v, want the deadline in its chain", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v, want about the deadline", took)
	}
}
