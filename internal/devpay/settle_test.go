package devpay_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/devpay"
	"library/internal/testkit/paytest"
)

// refundOf is the refund of a delivered event.
func refundOf(t *testing.T, r paytest.Received) stripe.Refund {
	t.Helper()
	require.NoError(t, r.Err)
	var rf stripe.Refund
	require.NoError(t, json.Unmarshal(r.Event.Data.Raw, &rf))
	return rf
}

// refund makes a refund of amount of a payment with stripe-go.
func refund(t *testing.T, p *paytest.Provider, intent string, amount int64) *stripe.Refund {
	t.Helper()
	r, err := p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(intent), Amount: stripe.Int64(amount)})
	require.NoError(t, err)
	return r
}

func TestPendingRefundsSettleLaterAndSendTheirEvents(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	s := open(t, p, 1000)
	paid, err := p.Pay(s.ID)
	require.NoError(t, err)
	p.PendRefunds(3)
	require.Equal(t, 3, p.Webhooks().RefundsToPend)

	failing, canceled, settled := refund(t, p, paid.PaymentIntent, 300), refund(t, p, paid.PaymentIntent, 300), refund(t, p, paid.PaymentIntent, 200)
	for _, r := range []*stripe.Refund{failing, canceled, settled} {
		require.Equal(t, stripe.RefundStatusPending, r.Status)
	}
	require.Equal(t, 0, p.Webhooks().RefundsToPend)
	_, err = p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(201)})
	require.Equal(t, "amount", stripeError(t, err).Param, "pending refunds count against what is left")

	got, err := p.SettleRefund(failing.ID, devpay.RefundFailed)
	require.NoError(t, err)
	require.Equal(t, devpay.RefundFailed, got.Status)
	_, err = p.SettleRefund(canceled.ID, devpay.RefundCanceled)
	require.NoError(t, err)
	_, err = p.SettleRefund(settled.ID, devpay.RefundSucceeded)
	require.NoError(t, err)
	session, _ := p.Session(s.ID)
	require.EqualValues(t, 200, session.Refunded, "a failed or canceled refund gives its amount back")

	rest := refund(t, p, paid.PaymentIntent, 800)
	require.Equal(t, stripe.RefundStatusSucceeded, rest.Status, "no more to pend")
	retrieved, err := p.Client().V1Refunds.Retrieve(t.Context(), failing.ID, nil)
	require.NoError(t, err)
	require.Equal(t, stripe.RefundStatusFailed, retrieved.Status)

	received := rcv.WaitReceived(9)
	require.Equal(t, []string{"checkout.session.completed", "refund.created", "refund.created", "refund.created",
		"refund.updated", "refund.failed", "refund.updated", "refund.updated", "refund.created"}, types(received))
	for i, want := range map[int]stripe.RefundStatus{1: stripe.RefundStatusPending, 4: stripe.RefundStatusFailed,
		5: stripe.RefundStatusFailed, 6: stripe.RefundStatusCanceled, 7: stripe.RefundStatusSucceeded} {
		require.Equal(t, want, refundOf(t, received[i]).Status, received[i].Event.Type)
	}
	require.Equal(t, failing.ID, refundOf(t, received[5]).ID)
	require.Empty(t, received[4].Event.Request.ID, "settled by the provider, not by a request")
}

func TestOnlyAPendingRefundSettles(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	done := refund(t, p, paid.PaymentIntent, 100)
	p.PendRefunds(1)
	pending := refund(t, p, paid.PaymentIntent, 100)

	_, err = p.SettleRefund(done.ID, devpay.RefundFailed)
	require.ErrorIs(t, err, devpay.ErrNotPending, "a refund that succeeded at once")
	for _, status := range []string{devpay.RefundPending, "requires_action", ""} {
		_, err = p.SettleRefund(pending.ID, status)
		require.ErrorIs(t, err, devpay.ErrRefundStatus, status)
	}
	_, err = p.SettleRefund("re_nothing", devpay.RefundSucceeded)
	require.ErrorIs(t, err, devpay.ErrNoRefund)
	_, err = p.SettleRefund(pending.ID, devpay.RefundCanceled)
	require.NoError(t, err)
	again, err := p.SettleRefund(pending.ID, devpay.RefundSucceeded)
	require.ErrorIs(t, err, devpay.ErrNotPending, "settled once")
	require.Equal(t, devpay.RefundCanceled, again.Status)
	got, found := p.Refund(pending.ID)
	require.True(t, found)
	require.Equal(t, devpay.RefundCanceled, got.Status)
	require.Len(t, p.Events(), 4, "completed, two refunds created, one updated")
}

// Only a refund made counts against PendRefunds: not a call failed by FailRefunds, nor a
// replay under an idempotency key, nor a refund refused.
func TestPendRefundsCountsOnlyRefundsMade(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	p.PendRefunds(2)
	p.FailRefunds(1)
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(100)}
	params.SetIdempotencyKey("library-refund-co_3")

	_, err = p.Client().V1Refunds.Create(t.Context(), params)
	require.Equal(t, http.StatusInternalServerError, stripeError(t, err).HTTPStatusCode)
	_, err = p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(5000)})
	require.Error(t, err)
	require.Equal(t, 2, p.Webhooks().RefundsToPend)

	first, err := p.Client().V1Refunds.Create(t.Context(), params)
	require.NoError(t, err)
	replayed, err := p.Client().V1Refunds.Create(t.Context(), params)
	require.NoError(t, err)
	require.Equal(t, first.ID, replayed.ID)
	require.Equal(t, stripe.RefundStatusPending, first.Status)
	require.Equal(t, 1, p.Webhooks().RefundsToPend)
}

// A settled refund's events are its session's: a hold on the session holds them too.
func TestASettledRefundsEventsAreHeldWithItsSession(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	s := open(t, p, 1000)
	paid, err := p.Pay(s.ID)
	require.NoError(t, err)
	p.PendRefunds(1)
	r := refund(t, p, paid.PaymentIntent, 1000)
	rcv.WaitReceived(2)

	p.Hold(s.ID)
	_, err = p.SettleRefund(r.ID, devpay.RefundFailed)
	require.NoError(t, err)
	p.WaitIdle()
	require.Len(t, rcv.Received(), 2, "held back")
	require.Equal(t, 2, p.Webhooks().Held)
	require.Equal(t, s.ID, p.Events()[3].SessionID)

	require.Equal(t, 2, p.Release(s.ID, devpay.InOrder))
	require.Equal(t, []string{"checkout.session.completed", "refund.created", "refund.updated", "refund.failed"},
		types(rcv.WaitReceived(4)))
	again := refund(t, p, paid.PaymentIntent, 1000)
	require.EqualValues(t, 1000, again.Amount, "the failed refund's amount may be refunded again")
}
