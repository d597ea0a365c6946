package paytest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"
	"go.uber.org/goleak"

	"library/internal/devpay"
	"library/internal/testkit/paytest"
)

// TestMain fails the run when a goroutine of the harness outlives its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The harness as another package's test uses it: a stripe-go client makes a session, the page
// is paid without a browser, and the signed webhook arrives at a receiver.
func TestAPaymentFromSessionToWebhook(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	require.True(t, strings.HasPrefix(p.URL(), "http://127.0.0.1:"), p.URL())
	require.NotEqual(t, devpay.DemoSecretKey, p.SecretKey(), "never the demo's key")
	require.NotEqual(t, devpay.DemoWebhookSecret, p.WebhookSecret())
	rcv := paytest.NewReceiver(t, p.WebhookSecret())
	require.NoError(t, p.SetWebhookURLs([]string{rcv.URL}))

	s, err := p.Client().V1CheckoutSessions.Create(t.Context(), &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String("payment"), SuccessURL: stripe.String("http://127.0.0.1:1/ok?s={CHECKOUT_SESSION_ID}"),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{Quantity: stripe.Int64(2),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{Currency: stripe.String("eur"), UnitAmount: stripe.Int64(300),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Fines")}}}},
	})
	require.NoError(t, err)
	require.EqualValues(t, 600, s.AmountTotal)

	a := p.Press(s.ID, "pay")
	require.Equal(t, http.StatusSeeOther, a.Status)
	require.Equal(t, "http://127.0.0.1:1/ok?s="+s.ID, a.Location)
	delivered := p.WaitDelivered("checkout.session.completed", 1)
	require.Equal(t, rcv.URL, delivered[0].URL)
	got := rcv.WaitReceived(1)
	require.NoError(t, got[0].Err)
	require.Equal(t, stripe.EventTypeCheckoutSessionCompleted, got[0].Event.Type)
	p.WaitIdle()
}

func TestTheReceiverRefusesABadSignatureAndFailsOnRequest(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	wrong := paytest.NewReceiver(t, "whsec_someone_else")
	require.NoError(t, p.SetWebhookURLs([]string{wrong.URL}))
	_, err := p.Pay(newSession(t, p))
	require.NoError(t, err)
	got := wrong.WaitReceived(1)
	require.Error(t, got[0].Err)
	require.Equal(t, http.StatusBadRequest, got[0].Status)

	right := paytest.NewReceiver(t, p.WebhookSecret())
	require.NoError(t, p.SetWebhookURLs([]string{right.URL}))
	right.Fail(http.StatusServiceUnavailable)
	_, err = p.Pay(newSession(t, p))
	require.NoError(t, err)
	got = right.WaitReceived(2)
	require.Equal(t, []int{http.StatusServiceUnavailable, http.StatusOK}, []int{got[0].Status, got[1].Status})
}

func newSession(t *testing.T, p *paytest.Provider) string {
	t.Helper()
	s, err := p.Client().V1CheckoutSessions.Create(t.Context(), &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String("payment"), SuccessURL: stripe.String("http://127.0.0.1:1/ok"),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{Currency: stripe.String("eur"), UnitAmount: stripe.Int64(500),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Fines")}}}},
	})
	require.NoError(t, err)
	return s.ID
}
