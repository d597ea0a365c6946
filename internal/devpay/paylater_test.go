package devpay_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/devpay"
	"library/internal/testkit/paytest"
)

// expanded is a session retrieved with stripe-go, its payment intent expanded.
func expanded(t *testing.T, p *paytest.Provider, sessionID string) *stripe.CheckoutSession {
	t.Helper()
	params := &stripe.CheckoutSessionRetrieveParams{}
	params.AddExpand("payment_intent")
	s, err := p.Client().V1CheckoutSessions.Retrieve(t.Context(), sessionID, params)
	require.NoError(t, err)
	require.NotNil(t, s.PaymentIntent)
	return s
}

// requireNotRefundable checks that a refund of the payment is refused as Stripe refuses the
// refund of a payment that has not succeeded.
func requireNotRefundable(t *testing.T, p *paytest.Provider, intent string) {
	t.Helper()
	_, err := p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{PaymentIntent: stripe.String(intent)})
	se := stripeError(t, err)
	require.Equal(t, http.StatusBadRequest, se.HTTPStatusCode)
	require.Equal(t, stripe.ErrorTypeInvalidRequest, se.Type)
	require.Equal(t, "payment_intent", se.Param)
	require.Empty(t, se.Code)
	require.Equal(t, "This PaymentIntent ("+intent+") does not have a successful charge to refund.", se.Msg)
}

func TestAPaymentThatArrivesLaterSucceeds(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	s := open(t, p, 1250)

	later, err := p.PayLater(s.ID)
	require.NoError(t, err)
	require.Equal(t, devpay.StatusComplete, later.Status)
	require.Equal(t, devpay.Unpaid, later.PaymentStatus)
	require.Equal(t, devpay.IntentProcessing, later.IntentStatus)
	require.True(t, strings.HasPrefix(later.PaymentIntent, "pi_"), later.PaymentIntent)
	got := expanded(t, p, s.ID)
	require.Equal(t, stripe.CheckoutSessionStatusComplete, got.Status)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusUnpaid, got.PaymentStatus)
	require.Equal(t, stripe.PaymentIntentStatusProcessing, got.PaymentIntent.Status)
	require.Zero(t, got.PaymentIntent.AmountReceived)
	requireNotRefundable(t, p, later.PaymentIntent)
	_, _, body := page(t, p.URL()+"/pay/"+s.ID)
	require.Contains(t, body, "Payment processing")
	require.NotContains(t, body, `value="pay"`)

	for _, again := range []func(string) (devpay.Session, error){p.Pay, p.PayLater} {
		still, err := again(s.ID)
		require.NoError(t, err)
		require.Equal(t, later.PaymentIntent, still.PaymentIntent, "a complete session pays nothing more")
		require.Equal(t, devpay.Unpaid, still.PaymentStatus)
	}

	paid, err := p.FinishPayment(s.ID, true)
	require.NoError(t, err)
	require.Equal(t, devpay.Paid, paid.PaymentStatus)
	require.Equal(t, devpay.IntentSucceeded, paid.IntentStatus)
	got = expanded(t, p, s.ID)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusPaid, got.PaymentStatus)
	require.Equal(t, stripe.PaymentIntentStatusSucceeded, got.PaymentIntent.Status)
	require.EqualValues(t, 1250, got.PaymentIntent.AmountReceived)
	_, err = p.FinishPayment(s.ID, false)
	require.ErrorIs(t, err, devpay.ErrNotProcessing, "finished once")

	received := rcv.WaitReceived(2)
	require.Equal(t, []string{"checkout.session.completed", "checkout.session.async_payment_succeeded"}, types(received))
	completed, succeeded := sessionOf(t, received[0]), sessionOf(t, received[1])
	require.Equal(t, stripe.CheckoutSessionPaymentStatusUnpaid, completed.PaymentStatus)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusPaid, succeeded.PaymentStatus)
	require.Equal(t, later.PaymentIntent, succeeded.PaymentIntent.ID)

	r, err := p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{PaymentIntent: stripe.String(later.PaymentIntent)})
	require.NoError(t, err)
	require.EqualValues(t, 1250, r.Amount, "refundable once it succeeded")
}

func TestAPaymentThatArrivesLaterFails(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	s := open(t, p, 1250)
	later, err := p.PayLater(s.ID)
	require.NoError(t, err)

	failed, err := p.FinishPayment(s.ID, false)
	require.NoError(t, err)
	require.Equal(t, devpay.StatusComplete, failed.Status)
	require.Equal(t, devpay.Unpaid, failed.PaymentStatus)
	require.Equal(t, devpay.IntentRequiresPaymentMethod, failed.IntentStatus)
	got := expanded(t, p, s.ID)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusUnpaid, got.PaymentStatus)
	require.Equal(t, stripe.PaymentIntentStatusRequiresPaymentMethod, got.PaymentIntent.Status)
	require.Zero(t, got.PaymentIntent.AmountReceived)
	requireNotRefundable(t, p, later.PaymentIntent)
	_, _, body := page(t, p.URL()+"/pay/"+s.ID)
	require.Contains(t, body, "Payment failed")

	_, err = p.FinishPayment(s.ID, true)
	require.ErrorIs(t, err, devpay.ErrNotProcessing, "a failed payment stays failed")
	still, err := p.Pay(s.ID)
	require.NoError(t, err)
	require.Equal(t, devpay.Unpaid, still.PaymentStatus, "a complete session pays nothing more")

	received := rcv.WaitReceived(2)
	require.Equal(t, []string{"checkout.session.completed", "checkout.session.async_payment_failed"}, types(received))
	require.Equal(t, stripe.CheckoutSessionPaymentStatusUnpaid, sessionOf(t, received[1]).PaymentStatus)
}

func TestOnlyAPaymentProcessingFinishes(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	opened, paid, expired := open(t, p, 1000), open(t, p, 1000), open(t, p, 1000)
	_, err := p.Pay(paid.ID)
	require.NoError(t, err)
	_, err = p.Expire(expired.ID)
	require.NoError(t, err)

	for _, id := range []string{opened.ID, paid.ID, expired.ID} {
		_, err = p.FinishPayment(id, true)
		require.ErrorIs(t, err, devpay.ErrNotProcessing, id)
	}
	_, err = p.FinishPayment("cs_test_nothing", true)
	require.ErrorIs(t, err, devpay.ErrNoSession)
	_, err = p.PayLater(expired.ID)
	require.ErrorIs(t, err, devpay.ErrNotOpen)
	_, err = p.PayLater("cs_test_nothing")
	require.ErrorIs(t, err, devpay.ErrNoSession)

	got := expanded(t, p, paid.ID)
	require.Equal(t, stripe.PaymentIntentStatusSucceeded, got.PaymentIntent.Status, "paid at once")
	session, _ := p.Session(paid.ID)
	require.Equal(t, devpay.IntentSucceeded, session.IntentStatus)
}
