package devpay_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/testkit/paytest"
)

// admin calls the admin API as the README's curl does.
func admin(t *testing.T, p *paytest.Provider, method, path string, form url.Values) (int, map[string]any) {
	t.Helper()
	status, _, body := call(t, method, p.URL()+"/_devpay/"+path, p.SecretKey(), form)
	return status, body
}

func TestTheAdminAPIPaysDeclinesAndExpires(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, declined, expired := open(t, p, 1000), open(t, p, 1000), open(t, p, 1000)

	status, body := admin(t, p, http.MethodPost, "sessions/"+paid.ID+"/pay", nil)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "complete", body["status"])
	require.Equal(t, "paid", body["payment_status"])
	status, body = admin(t, p, http.MethodPost, "sessions/"+declined.ID+"/decline", nil)
	require.Equal(t, http.StatusOK, status, body)
	require.EqualValues(t, 1, body["declines"])
	status, body = admin(t, p, http.MethodPost, "sessions/"+expired.ID+"/expire", nil)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "expired", body["status"])

	status, body = admin(t, p, http.MethodPost, "sessions/"+expired.ID+"/pay", nil)
	require.Equal(t, http.StatusBadRequest, status, "an expired session is not paid")
	require.Equal(t, "invalid_request_error", apiError(t, body)["type"])
	status, _ = admin(t, p, http.MethodPost, "sessions/cs_test_nothing/pay", nil)
	require.Equal(t, http.StatusNotFound, status)

	status, body = admin(t, p, http.MethodGet, "sessions/"+paid.ID, nil)
	require.Equal(t, http.StatusOK, status)
	require.NotEmpty(t, body["payment_intent"])
	_, body = admin(t, p, http.MethodGet, "sessions", nil)
	require.Len(t, body["data"], 3)
	_, body = admin(t, p, http.MethodGet, "events", nil)
	require.Len(t, body["data"], 2)
	status, body = admin(t, p, http.MethodPost, "expire-due", nil)
	require.Equal(t, http.StatusOK, status)
	require.EqualValues(t, 0, body["expired"])
}

func TestTheAdminAPISteersTheWebhooks(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	rcv := paytest.NewReceiver(t, p.WebhookSecret())

	_, body := admin(t, p, http.MethodGet, "webhooks", nil)
	require.Equal(t, []any{}, body["urls"], "none yet, as a list")
	status, body := admin(t, p, http.MethodPost, "webhooks/urls", url.Values{"url": {rcv.URL}})
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, []any{rcv.URL}, body["urls"])
	status, _ = admin(t, p, http.MethodPost, "webhooks/urls", url.Values{"url": {"ftp://x"}})
	require.Equal(t, http.StatusBadRequest, status)

	s1, s2 := open(t, p, 1000), open(t, p, 1000)
	status, body = admin(t, p, http.MethodPost, "webhooks/hold", nil)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, true, body["hold_all"])
	_, err := p.Pay(s1.ID)
	require.NoError(t, err)
	_, err = p.Pay(s2.ID)
	require.NoError(t, err)
	status, body = admin(t, p, http.MethodPost, "webhooks/release", url.Values{"order": {"reverse"}})
	require.Equal(t, http.StatusOK, status)
	require.EqualValues(t, 2, body["released"])
	got := rcv.WaitReceived(2)
	require.Equal(t, s2.ID, sessionOf(t, got[0]).ID)

	status, _ = admin(t, p, http.MethodPost, "webhooks/copies", url.Values{"n": {"2"}, "together": {"true"}})
	require.Equal(t, http.StatusOK, status)
	status, _ = admin(t, p, http.MethodPost, "webhooks/copies", url.Values{"n": {"many"}})
	require.Equal(t, http.StatusBadRequest, status)
	s3 := open(t, p, 1000)
	admin(t, p, http.MethodPost, "webhooks/hold", url.Values{"session": {s3.ID}})
	_, err = p.Expire(s3.ID)
	require.NoError(t, err)
	_, body = admin(t, p, http.MethodGet, "webhooks", nil)
	require.Equal(t, []any{s3.ID}, body["held_sessions"])
	require.EqualValues(t, 2, body["copies"])
	require.Equal(t, true, body["together"])
	_, body = admin(t, p, http.MethodPost, "webhooks/drop", url.Values{"session": {s3.ID}})
	require.EqualValues(t, 1, body["dropped"])

	p.WaitIdle()
	_, body = admin(t, p, http.MethodGet, "deliveries", nil)
	require.Len(t, body["data"], 2)
	first := body["data"].([]any)[0].(map[string]any)
	require.EqualValues(t, 200, first["status"])
	require.Equal(t, rcv.URL, first["url"])
}

func TestTheAdminAPIFailsRefundsAndCountsCalls(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	status, _ := admin(t, p, http.MethodPost, "faults/refunds", url.Values{"n": {"1"}})
	require.Equal(t, http.StatusOK, status)

	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent)}
	params.SetIdempotencyKey("library-refund-co_9")
	_, err = p.Client().V1Refunds.Create(t.Context(), params)
	require.Equal(t, http.StatusInternalServerError, stripeError(t, err).HTTPStatusCode)
	_, err = p.Client().V1Refunds.Create(t.Context(), params)
	require.NoError(t, err)

	_, body := admin(t, p, http.MethodGet, "refunds", nil)
	require.Len(t, body["data"], 1)
	_, body = admin(t, p, http.MethodGet, "calls?key=library-refund-co_9", nil)
	require.EqualValues(t, 2, body["calls"])
	_, body = admin(t, p, http.MethodGet, "calls", nil)
	counts := body["data"].(map[string]any)
	require.EqualValues(t, 2, counts["library-refund-co_9"])
	require.Len(t, counts, 2, "and the key stripe-go made up for the session")
}

// curl -u sk_test_devpay: is how Stripe's own documentation passes the key.
func TestTheKeyMayComeAsBasicAuthentication(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.URL()+"/_devpay/sessions", nil)
	require.NoError(t, err)
	req.SetBasicAuth(p.SecretKey(), "")
	client := &http.Client{Transport: &http.Transport{}, Timeout: paytest.Wait}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestTheAdminAPIPaysLaterAndFinishes(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	succeeding, failing, opened := open(t, p, 1000), open(t, p, 1000), open(t, p, 1000)

	for _, s := range []*stripe.CheckoutSession{succeeding, failing} {
		status, body := admin(t, p, http.MethodPost, "sessions/"+s.ID+"/pay-later", nil)
		require.Equal(t, http.StatusOK, status, body)
		require.Equal(t, "complete", body["status"])
		require.Equal(t, "unpaid", body["payment_status"])
		require.Equal(t, "processing", body["payment_intent_status"])
	}
	status, body := admin(t, p, http.MethodPost, "sessions/"+succeeding.ID+"/finish", url.Values{"succeeded": {"true"}})
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "paid", body["payment_status"])
	require.Equal(t, "succeeded", body["payment_intent_status"])
	status, body = admin(t, p, http.MethodPost, "sessions/"+failing.ID+"/finish", url.Values{"succeeded": {"false"}})
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "unpaid", body["payment_status"])
	require.Equal(t, "requires_payment_method", body["payment_intent_status"])

	status, body = admin(t, p, http.MethodPost, "sessions/"+failing.ID+"/finish", url.Values{"succeeded": {"true"}})
	require.Equal(t, http.StatusBadRequest, status, "finished once")
	require.Equal(t, "invalid_request_error", apiError(t, body)["type"])
	status, _ = admin(t, p, http.MethodPost, "sessions/"+opened.ID+"/finish", url.Values{"succeeded": {"true"}})
	require.Equal(t, http.StatusBadRequest, status, "nothing is processing")
	status, body = admin(t, p, http.MethodPost, "sessions/"+opened.ID+"/finish", url.Values{"succeeded": {"maybe"}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "succeeded", apiError(t, body)["param"])
	status, _ = admin(t, p, http.MethodPost, "sessions/cs_test_nothing/finish", url.Values{"succeeded": {"true"}})
	require.Equal(t, http.StatusNotFound, status)
	status, _ = admin(t, p, http.MethodPost, "sessions/cs_test_nothing/pay-later", nil)
	require.Equal(t, http.StatusNotFound, status)

	_, body = admin(t, p, http.MethodGet, "events", nil)
	var kinds []any
	for _, ev := range body["data"].([]any) {
		kinds = append(kinds, ev.(map[string]any)["type"])
	}
	require.Equal(t, []any{"checkout.session.completed", "checkout.session.completed",
		"checkout.session.async_payment_succeeded", "checkout.session.async_payment_failed"}, kinds)
}

func TestTheAdminAPIPendsAndSettlesRefunds(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	status, body := admin(t, p, http.MethodPost, "faults/pending-refunds", url.Values{"n": {"2"}})
	require.Equal(t, http.StatusOK, status, body)
	require.EqualValues(t, 2, body["refunds_to_pend"])
	status, _ = admin(t, p, http.MethodPost, "faults/pending-refunds", url.Values{"n": {"-1"}})
	require.Equal(t, http.StatusBadRequest, status)

	r := refund(t, p, paid.PaymentIntent, 400)
	require.Equal(t, stripe.RefundStatusPending, r.Status)
	_, body = admin(t, p, http.MethodGet, "webhooks", nil)
	require.EqualValues(t, 1, body["refunds_to_pend"])

	status, body = admin(t, p, http.MethodPost, "refunds/"+r.ID+"/settle", url.Values{"status": {"pending"}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "status", apiError(t, body)["param"])
	status, _ = admin(t, p, http.MethodPost, "refunds/re_nothing/settle", url.Values{"status": {"failed"}})
	require.Equal(t, http.StatusNotFound, status)
	status, body = admin(t, p, http.MethodPost, "refunds/"+r.ID+"/settle", url.Values{"status": {"failed"}})
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, r.ID, body["id"])
	require.Equal(t, "failed", body["status"])
	status, body = admin(t, p, http.MethodPost, "refunds/"+r.ID+"/settle", url.Values{"status": {"succeeded"}})
	require.Equal(t, http.StatusBadRequest, status, "settled once")
	require.Equal(t, "invalid_request_error", apiError(t, body)["type"])

	_, body = admin(t, p, http.MethodGet, "refunds", nil)
	require.Equal(t, "failed", body["data"].([]any)[0].(map[string]any)["status"])
	_, body = admin(t, p, http.MethodGet, "sessions/"+paid.ID, nil)
	require.EqualValues(t, 0, body["refunded"], "the failed refund's amount is back")
}
