package devpay_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/testkit/paytest"
)

func TestStripeGoCreatesRetrievesAndExpiresASession(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	client := p.Client()
	before := time.Now().Unix()

	s, err := client.V1CheckoutSessions.Create(t.Context(), fine(1250))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s.ID, "cs_test_"), s.ID)
	require.Equal(t, "checkout.session", s.Object)
	require.Equal(t, p.URL()+"/pay/"+s.ID, s.URL)
	require.Equal(t, stripe.CheckoutSessionStatusOpen, s.Status)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusUnpaid, s.PaymentStatus)
	require.Equal(t, stripe.CheckoutSessionModePayment, s.Mode)
	require.EqualValues(t, 1250, s.AmountTotal)
	require.Equal(t, stripe.CurrencyEUR, s.Currency)
	require.Equal(t, "co_checkout1", s.ClientReferenceID)
	require.Equal(t, map[string]string{"checkout_id": "co_checkout1", "member_id": "m-alice"}, s.Metadata)
	require.Nil(t, s.PaymentIntent)
	require.Equal(t, "http://127.0.0.1:8080/paid?session={CHECKOUT_SESSION_ID}", s.SuccessURL)
	require.Equal(t, "http://127.0.0.1:8080/fines", s.CancelURL)
	require.GreaterOrEqual(t, s.Created, before)
	require.Equal(t, s.Created+24*3600, s.ExpiresAt, "a day by default, as at Stripe")

	got, err := client.V1CheckoutSessions.Retrieve(t.Context(), s.ID, nil)
	require.NoError(t, err)
	require.Equal(t, s.ID, got.ID)
	require.Equal(t, s.AmountTotal, got.AmountTotal)
	require.Equal(t, s.Metadata, got.Metadata)

	expired, err := client.V1CheckoutSessions.Expire(t.Context(), s.ID, nil)
	require.NoError(t, err)
	require.Equal(t, stripe.CheckoutSessionStatusExpired, expired.Status)
	require.Empty(t, expired.URL, "Stripe shows no url once a session is over")

	_, err = client.V1CheckoutSessions.Expire(t.Context(), s.ID, nil)
	se := stripeError(t, err)
	require.Equal(t, http.StatusBadRequest, se.HTTPStatusCode)
	require.Equal(t, stripe.ErrorTypeInvalidRequest, se.Type)

	_, err = client.V1CheckoutSessions.Retrieve(t.Context(), "cs_test_nothing", nil)
	se = stripeError(t, err)
	require.Equal(t, http.StatusNotFound, se.HTTPStatusCode)
	require.Equal(t, stripe.ErrorCodeResourceMissing, se.Code)
}

func TestAPaidSessionShowsItsPaymentIntent(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	s := open(t, p, 900)
	paid, err := p.Pay(s.ID)
	require.NoError(t, err)

	params := &stripe.CheckoutSessionRetrieveParams{}
	params.AddExpand("payment_intent")
	got, err := p.Client().V1CheckoutSessions.Retrieve(t.Context(), s.ID, params)
	require.NoError(t, err)
	require.Equal(t, stripe.CheckoutSessionStatusComplete, got.Status)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusPaid, got.PaymentStatus)
	require.NotNil(t, got.PaymentIntent)
	require.Equal(t, paid.PaymentIntent, got.PaymentIntent.ID)
	require.True(t, strings.HasPrefix(got.PaymentIntent.ID, "pi_"), got.PaymentIntent.ID)
	require.EqualValues(t, 900, got.PaymentIntent.AmountReceived)
	require.Equal(t, map[string]string{"checkout_id": "co_checkout1"}, got.PaymentIntent.Metadata)

	plain, err := p.Client().V1CheckoutSessions.Retrieve(t.Context(), s.ID, nil)
	require.NoError(t, err)
	require.Equal(t, paid.PaymentIntent, plain.PaymentIntent.ID, "an id string when not expanded")
}

func TestRefundsGiveBackNoMoreThanWasPaid(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	client := p.Client()
	s := open(t, p, 1000)
	paid, err := p.Pay(s.ID)
	require.NoError(t, err)

	r, err := client.V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(300),
		Metadata: map[string]string{"checkout_id": "co_checkout1"},
	})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(r.ID, "re_"), r.ID)
	require.Equal(t, "refund", r.Object)
	require.EqualValues(t, 300, r.Amount)
	require.Equal(t, stripe.CurrencyEUR, r.Currency)
	require.Equal(t, stripe.RefundStatusSucceeded, r.Status)
	require.Equal(t, paid.PaymentIntent, r.PaymentIntent.ID)
	require.Equal(t, map[string]string{"checkout_id": "co_checkout1"}, r.Metadata)

	_, err = client.V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(701)})
	se := stripeError(t, err)
	require.Equal(t, http.StatusBadRequest, se.HTTPStatusCode)
	require.Equal(t, "amount", se.Param)

	rest, err := client.V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent)})
	require.NoError(t, err)
	require.EqualValues(t, 700, rest.Amount, "without an amount, all that is left")

	_, err = client.V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(1)})
	require.Equal(t, stripe.ErrorCodeChargeAlreadyRefunded, stripeError(t, err).Code)

	_, err = client.V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_nothing")})
	se = stripeError(t, err)
	require.Equal(t, stripe.ErrorCodeResourceMissing, se.Code)
	require.Equal(t, "payment_intent", se.Param)

	require.Len(t, p.Refunds(), 2)
	got, _ := p.Session(s.ID)
	require.EqualValues(t, 1000, got.Refunded)
}

func TestEveryCallNeedsTheSecretKey(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	target := p.URL() + "/v1/checkout/sessions/cs_test_x"
	for name, key := range map[string]string{"no key": "", "another key": "sk_test_other"} {
		status, _, body := call(t, http.MethodGet, target, key, nil)
		require.Equal(t, http.StatusUnauthorized, status, name)
		require.Equal(t, "invalid_request_error", apiError(t, body)["type"], name)
		require.NotContains(t, apiError(t, body)["message"], p.SecretKey(), name)
	}
	for _, admin := range []string{"/_devpay/sessions", "/_devpay/events"} {
		status, _, _ := call(t, http.MethodGet, p.URL()+admin, "", nil)
		require.Equal(t, http.StatusUnauthorized, status, admin)
	}
	status, _, _ := call(t, http.MethodGet, target, p.SecretKey(), nil)
	require.Equal(t, http.StatusNotFound, status)
}

// What devpay does not know it refuses, as Stripe refuses what it does not take, rather than
// make a session that is not what the caller meant.
func TestBadParametersAreRefusedAsStripeRefusesThem(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t, paytest.Options{MinExpiry: 30 * time.Minute}) // Stripe's, and devpay's by default
	now := time.Now()
	good := func() url.Values {
		return url.Values{
			"mode": {"payment"}, "success_url": {"http://127.0.0.1:8080/paid"},
			"line_items[0][quantity]": {"1"}, "line_items[0][price_data][currency]": {"eur"},
			"line_items[0][price_data][unit_amount]": {"500"}, "line_items[0][price_data][product_data][name]": {"Fines"},
		}
	}
	cases := []struct {
		name, param, code string
		change            func(url.Values)
	}{
		{"an unknown parameter", "customer", "parameter_unknown", func(f url.Values) { f.Set("customer", "cus_1") }},
		{"no mode", "mode", "parameter_missing", func(f url.Values) { f.Del("mode") }},
		{"a subscription", "mode", "", func(f url.Values) { f.Set("mode", "subscription") }},
		{"no line item", "line_items", "parameter_missing", func(f url.Values) {
			for k := range f {
				if strings.HasPrefix(k, "line_items") {
					f.Del(k)
				}
			}
		}},
		{"no currency", "line_items[0][price_data][currency]", "parameter_missing", func(f url.Values) { f.Del("line_items[0][price_data][currency]") }},
		{"a bad currency", "line_items[0][price_data][currency]", "", func(f url.Values) { f.Set("line_items[0][price_data][currency]", "euro") }},
		{"a bad amount", "line_items[0][price_data][unit_amount]", "", func(f url.Values) { f.Set("line_items[0][price_data][unit_amount]", "-5") }},
		{"less than Stripe charges", "line_items", "amount_too_small", func(f url.Values) { f.Set("line_items[0][price_data][unit_amount]", "49") }},
		{"a price id", "line_items[0][price]", "parameter_unknown", func(f url.Values) { f.Set("line_items[0][price]", "price_1") }},
		{"a second currency", "line_items[1][price_data][currency]", "", func(f url.Values) {
			f.Set("line_items[1][quantity]", "1")
			f.Set("line_items[1][price_data][currency]", "usd")
			f.Set("line_items[1][price_data][unit_amount]", "500")
			f.Set("line_items[1][price_data][product_data][name]", "More")
		}},
		{"a gap in the line items", "line_items[1]", "parameter_missing", func(f url.Values) { f.Set("line_items[2][quantity]", "1") }},
		{"a relative success URL", "success_url", "", func(f url.Values) { f.Set("success_url", "/paid") }},
		{"an expiry too soon", "expires_at", "", func(f url.Values) { f.Set("expires_at", unix(now.Add(10*time.Minute))) }},
		{"an expiry too late", "expires_at", "", func(f url.Values) { f.Set("expires_at", unix(now.Add(25*time.Hour))) }},
		{"a long metadata key", "metadata[" + strings.Repeat("k", 41) + "]", "", func(f url.Values) { f.Set("metadata["+strings.Repeat("k", 41)+"]", "v") }},
		{"an expansion devpay lacks", "expand[0]", "", func(f url.Values) { f.Set("expand[0]", "customer") }},
	}
	for _, c := range cases {
		form := good()
		c.change(form)
		status, _, body := call(t, http.MethodPost, p.URL()+"/v1/checkout/sessions", p.SecretKey(), form)
		require.Equal(t, http.StatusBadRequest, status, c.name)
		e := apiError(t, body)
		require.Equal(t, "invalid_request_error", e["type"], c.name)
		require.Equal(t, c.param, e["param"], c.name)
		if c.code != "" {
			require.Equal(t, c.code, e["code"], c.name)
		}
	}
	require.Empty(t, p.Sessions())

	form := good()
	form.Set("expires_at", unix(now.Add(31*time.Minute)))
	form.Set("line_items[1][quantity]", "2")
	form.Set("line_items[1][price_data][currency]", "EUR")
	form.Set("line_items[1][price_data][unit_amount]", "250")
	form.Set("line_items[1][price_data][product_data][name]", "Lost card")
	status, _, body := call(t, http.MethodPost, p.URL()+"/v1/checkout/sessions", p.SecretKey(), form)
	require.Equal(t, http.StatusOK, status, body)
	require.EqualValues(t, 1000, body["amount_total"])
	require.EqualValues(t, now.Add(31*time.Minute).Unix(), body["expires_at"])
}

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
