package devpay_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/devpay"
	"library/internal/testkit/paytest"
)

// expiring asks for a session that expires at a time, and returns the API's status and body.
func expiring(t *testing.T, p *paytest.Provider, at time.Time) (int, map[string]any) {
	t.Helper()
	form := url.Values{
		"mode": {"payment"}, "success_url": {"http://127.0.0.1:8080/paid"}, "expires_at": {unix(at)},
		"line_items[0][quantity]": {"1"}, "line_items[0][price_data][currency]": {"eur"},
		"line_items[0][price_data][unit_amount]": {"500"}, "line_items[0][price_data][product_data][name]": {"Fines"},
	}
	status, _, body := call(t, http.MethodPost, p.URL()+"/v1/checkout/sessions", p.SecretKey(), form)
	return status, body
}

// paytest's sessions may expire a second from now, and do, by the real clock, with their event.
func TestASessionMayExpireInSeconds(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	params := fine(1000)
	params.ExpiresAt = stripe.Int64(time.Now().Add(2 * time.Second).Unix())
	s, err := p.Client().V1CheckoutSessions.Create(t.Context(), params)
	require.NoError(t, err)
	require.Equal(t, stripe.CheckoutSessionStatusOpen, s.Status)

	got := rcv.WaitReceived(1)
	require.Equal(t, []string{"checkout.session.expired"}, types(got))
	require.Equal(t, s.ID, sessionOf(t, got[0]).ID)
	require.False(t, time.Now().Before(time.Unix(s.ExpiresAt, 0)), "not before its expires_at")
}

func TestMinExpiryBoundsExpiresAt(t *testing.T) {
	t.Parallel()
	clock := newClock()
	seconds := paytest.Start(t, paytest.Options{Now: clock.Now})
	for name, at := range map[string]time.Time{"now": clock.Now(), "past": clock.Now().Add(-time.Minute)} {
		status, body := expiring(t, seconds, at)
		require.Equal(t, http.StatusBadRequest, status, name)
		require.Equal(t, "expires_at", apiError(t, body)["param"], name)
	}
	status, body := expiring(t, seconds, clock.Now().Add(2*time.Second))
	require.Equal(t, http.StatusOK, status, body)
	id := body["id"].(string)
	clock.Advance(2 * time.Second)
	got, found := seconds.Session(id)
	require.True(t, found)
	require.Equal(t, devpay.StatusExpired, got.Status)

	minutes := paytest.Start(t, paytest.Options{MinExpiry: 10 * time.Minute})
	status, body = expiring(t, minutes, time.Now().Add(5*time.Minute))
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, apiError(t, body)["message"], "10m0s")
	status, _ = expiring(t, minutes, time.Now().Add(11*time.Minute))
	require.Equal(t, http.StatusOK, status)
	status, _ = expiring(t, minutes, time.Now().Add(25*time.Hour))
	require.Equal(t, http.StatusBadRequest, status, "24 hours at most, as at Stripe")
}

func TestMinExpiryIsAtMostADay(t *testing.T) {
	t.Parallel()
	_, err := devpay.New(devpay.Options{URL: "http://127.0.0.1:1", MinExpiry: 25 * time.Hour})
	require.ErrorContains(t, err, "MinExpiry")
	p, err := devpay.New(devpay.Options{URL: "http://127.0.0.1:1", MinExpiry: 24 * time.Hour})
	require.NoError(t, err)
	p.Close()
}
