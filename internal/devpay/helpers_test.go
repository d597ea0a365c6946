package devpay_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"
	"go.uber.org/goleak"

	"library/internal/testkit/paytest"
)

// TestMain fails the run when a goroutine of devpay, such as a delivery, outlives its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fine is what the tests pay: a late fine, as the service would ask for it.
func fine(amount int64) *stripe.CheckoutSessionCreateParams {
	return &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String("payment"),
		SuccessURL:        stripe.String("http://127.0.0.1:8080/paid?session={CHECKOUT_SESSION_ID}"),
		CancelURL:         stripe.String("http://127.0.0.1:8080/fines"),
		ClientReferenceID: stripe.String("co_checkout1"),
		Metadata:          map[string]string{"checkout_id": "co_checkout1", "member_id": "m-alice"},
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{
			Metadata: map[string]string{"checkout_id": "co_checkout1"},
		},
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String("eur"),
				UnitAmount:  stripe.Int64(amount),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Late fines")},
			},
		}},
	}
}

// withKey is params under an idempotency key.
func withKey(p *stripe.CheckoutSessionCreateParams, key string) *stripe.CheckoutSessionCreateParams {
	p.SetIdempotencyKey(key)
	return p
}

// open makes a session of a fine with stripe-go.
func open(t *testing.T, p *paytest.Provider, amount int64) *stripe.CheckoutSession {
	t.Helper()
	s, err := p.Client().V1CheckoutSessions.Create(t.Context(), fine(amount))
	require.NoError(t, err)
	return s
}

// stripeError is err as stripe-go's *stripe.Error, failing the test if it is not one.
func stripeError(t *testing.T, err error) *stripe.Error {
	t.Helper()
	var se *stripe.Error
	require.True(t, errors.As(err, &se), "not a *stripe.Error: %v", err)
	return se
}

// call is a raw API call, for what stripe-go would never send, with the key as a Bearer token.
func call(t *testing.T, method, target, key string, form url.Values) (int, http.Header, map[string]any) {
	t.Helper()
	return callWith(t, method, target, key, form, nil)
}

// callWith is a raw API call with headers of its own.
func callWith(t *testing.T, method, target, key string, form url.Values, h http.Header) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	client := &http.Client{Transport: &http.Transport{}, Timeout: paytest.Wait}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body), "%s", raw)
	return resp.StatusCode, resp.Header, body
}

// apiError is the error object of a Stripe error body.
func apiError(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	e, ok := body["error"].(map[string]any)
	require.True(t, ok, "no error object in %v", body)
	return e
}

// clock is a clock a test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// types are the types of the events of deliveries, in their order.
func types(rs []paytest.Received) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r.Event.Type)
	}
	return out
}

// sessionOf is the checkout session of a delivered event.
func sessionOf(t *testing.T, r paytest.Received) stripe.CheckoutSession {
	t.Helper()
	require.NoError(t, r.Err)
	var s stripe.CheckoutSession
	require.NoError(t, json.Unmarshal(r.Event.Data.Raw, &s))
	return s
}
