package devpay_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/testkit/paytest"
)

func TestTheSameKeyAndParametersGetTheFirstAnswer(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	client := p.Client()

	first, err := client.V1CheckoutSessions.Create(t.Context(), withKey(fine(700), "library-checkout-co_1"))
	require.NoError(t, err)
	require.Empty(t, first.LastResponse.Header.Get("Idempotent-Replayed"))
	again, err := client.V1CheckoutSessions.Create(t.Context(), withKey(fine(700), "library-checkout-co_1"))
	require.NoError(t, err)
	require.Equal(t, first.ID, again.ID)
	require.Equal(t, "true", again.LastResponse.Header.Get("Idempotent-Replayed"))
	require.Equal(t, string(first.LastResponse.RawJSON), string(again.LastResponse.RawJSON), "the same body")

	require.Len(t, p.Sessions(), 1)
	require.Equal(t, 2, p.Calls("library-checkout-co_1"))
	require.Equal(t, map[string]int{"library-checkout-co_1": 2}, p.CallCounts())

	other, err := client.V1CheckoutSessions.Create(t.Context(), withKey(fine(700), "library-checkout-co_2"))
	require.NoError(t, err)
	require.NotEqual(t, first.ID, other.ID, "another key, another session")
}

func TestTheSameKeyWithOtherParametersIsAnIdempotencyError(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	client := p.Client()
	_, err := client.V1CheckoutSessions.Create(t.Context(), withKey(fine(700), "k1"))
	require.NoError(t, err)

	_, err = client.V1CheckoutSessions.Create(t.Context(), withKey(fine(800), "k1"))
	se := stripeError(t, err)
	require.Equal(t, http.StatusBadRequest, se.HTTPStatusCode)
	require.Equal(t, stripe.ErrorTypeIdempotency, se.Type)

	s := p.Sessions()[0]
	_, err = client.V1CheckoutSessions.Expire(t.Context(), s.ID, &stripe.CheckoutSessionExpireParams{Params: stripe.Params{IdempotencyKey: stripe.String("k1")}})
	require.Equal(t, stripe.ErrorTypeIdempotency, stripeError(t, err).Type, "nor on another endpoint")
	require.Len(t, p.Sessions(), 1)
	got, _ := p.Session(s.ID)
	require.Equal(t, "open", got.Status)
}

// Stripe keeps no answer for parameters it refused: the same key may then be used for a
// request that is right.
func TestARefusedRequestKeepsNothingUnderItsKey(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	bad := url.Values{"mode": {"payment"}}
	status, _, _ := callWith(t, http.MethodPost, p.URL()+"/v1/checkout/sessions", p.SecretKey(), bad,
		http.Header{"Idempotency-Key": {"k-refused"}})
	require.Equal(t, http.StatusBadRequest, status)

	_, err := p.Client().V1CheckoutSessions.Create(t.Context(), withKey(fine(700), "k-refused"))
	require.NoError(t, err, "a refused call keeps nothing under its key")
	require.Equal(t, 2, p.Calls("k-refused"))
	require.Len(t, p.Sessions(), 1)
}

func TestKeysAreKeptADay(t *testing.T) {
	t.Parallel()
	clock := newClock()
	p := paytest.Start(t, paytest.Options{Now: clock.Now})
	client := p.Client()
	first, err := client.V1CheckoutSessions.Create(t.Context(), withKey(fine(700), "k-day"))
	require.NoError(t, err)

	clock.Advance(24*time.Hour - time.Second)
	_, err = client.V1CheckoutSessions.Create(t.Context(), withKey(fine(800), "k-day"))
	require.Equal(t, stripe.ErrorTypeIdempotency, stripeError(t, err).Type, "still kept")

	clock.Advance(time.Second)
	second, err := client.V1CheckoutSessions.Create(t.Context(), withKey(fine(800), "k-day"))
	require.NoError(t, err, "a day later the key is new")
	require.NotEqual(t, first.ID, second.ID)
}

func TestARefundRetriedUnderItsKeyRefundsOnce(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	params := func() *stripe.RefundCreateParams {
		r := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(400)}
		r.SetIdempotencyKey("library-refund-co_1")
		return r
	}
	first, err := p.Client().V1Refunds.Create(t.Context(), params())
	require.NoError(t, err)
	again, err := p.Client().V1Refunds.Create(t.Context(), params())
	require.NoError(t, err)
	require.Equal(t, first.ID, again.ID)
	require.Len(t, p.Refunds(), 1)
	got, _ := p.Session(paid.ID)
	require.EqualValues(t, 400, got.Refunded)
}

// A refund failed on purpose happens before Stripe's endpoint: a retry under the same key
// goes through, and refunds once.
func TestFailedRefundsAreRetriedUnderTheirKey(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	params := func() *stripe.RefundCreateParams {
		r := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent)}
		r.SetIdempotencyKey("library-refund-co_2")
		return r
	}

	p.FailRefunds(2)
	for range 2 {
		_, err = p.Client().V1Refunds.Create(t.Context(), params())
		se := stripeError(t, err)
		require.Equal(t, http.StatusInternalServerError, se.HTTPStatusCode)
		require.Equal(t, stripe.ErrorTypeAPI, se.Type)
	}
	require.Empty(t, p.Refunds())
	require.Equal(t, 2, p.Calls("library-refund-co_2"), "stripe-go does not retry a Stripe error")

	r, err := p.Client().V1Refunds.Create(t.Context(), params())
	require.NoError(t, err)
	require.EqualValues(t, 1000, r.Amount)
	require.Len(t, p.Refunds(), 1)
	again, err := p.Client().V1Refunds.Create(t.Context(), params())
	require.NoError(t, err)
	require.Equal(t, r.ID, again.ID)
	require.Len(t, p.Refunds(), 1)
	require.Equal(t, 4, p.Calls("library-refund-co_2"))
}
