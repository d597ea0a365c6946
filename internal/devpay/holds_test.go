package devpay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/devpay"
	"library/internal/testkit/paytest"
)

func TestHeldEventsAreReleasedInReverse(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	p.Hold("")
	first, second := open(t, p, 1000), open(t, p, 2000)
	_, err := p.Pay(first.ID)
	require.NoError(t, err)
	_, err = p.Expire(second.ID)
	require.NoError(t, err)
	p.WaitIdle()
	require.Empty(t, rcv.Received(), "held back")
	require.Equal(t, 2, p.Webhooks().Held)
	require.Equal(t, devpay.EventHeld, p.Events()[0].State)

	require.Equal(t, 2, p.Release("", devpay.Reversed))
	got := rcv.WaitReceived(2)
	require.Equal(t, []string{"checkout.session.expired", "checkout.session.completed"}, types(got), "out of order")
	require.Equal(t, second.ID, sessionOf(t, got[0]).ID)
	require.Equal(t, 0, p.Webhooks().Held)

	_, err = p.Pay(open(t, p, 500).ID)
	require.NoError(t, err)
	require.Len(t, rcv.WaitReceived(3), 3, "the hold is over")
}

// A lost webhook: the session is paid at the provider, and the service is never told; only
// asking the provider (reconciliation) finds the payment.
func TestADroppedEventIsNeverSent(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	lost, kept := open(t, p, 1000), open(t, p, 2000)
	p.Hold(lost.ID)
	_, err := p.Pay(lost.ID)
	require.NoError(t, err)
	_, err = p.Pay(kept.ID)
	require.NoError(t, err)

	got := rcv.WaitReceived(1)
	require.Equal(t, kept.ID, sessionOf(t, got[0]).ID, "only the held session's events wait")
	require.Equal(t, []string{lost.ID}, p.Webhooks().HeldSessions)

	require.Equal(t, 1, p.Drop(lost.ID))
	p.WaitIdle()
	require.Len(t, rcv.Received(), 1)
	require.Equal(t, devpay.EventDropped, p.Events()[0].State)
	require.Empty(t, p.Webhooks().HeldSessions)
	require.Zero(t, p.Release("", devpay.InOrder), "nothing left to release")

	s, err := p.Client().V1CheckoutSessions.Retrieve(t.Context(), lost.ID, nil)
	require.NoError(t, err)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusPaid, s.PaymentStatus)
}

func TestReleasingOneSessionSendsItsEventsInOrder(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	s := open(t, p, 1000)
	p.Hold(s.ID)
	paid, err := p.Pay(s.ID)
	require.NoError(t, err)
	_, err = p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent)})
	require.NoError(t, err)
	p.WaitIdle()
	require.Empty(t, rcv.Received(), "a refund's event is its session's")

	require.Equal(t, 2, p.Release(s.ID, devpay.InOrder))
	require.Equal(t, []string{"checkout.session.completed", "refund.created"}, types(rcv.WaitReceived(2)))
}

func TestSessionsExpireWhenTheClockPassesTheirTime(t *testing.T) {
	t.Parallel()
	clock := newClock()
	p, rcv := started(t, paytest.Options{Now: clock.Now})
	params := fine(1000)
	params.ExpiresAt = stripe.Int64(clock.Now().Add(time.Hour).Unix())
	soon, err := p.Client().V1CheckoutSessions.Create(t.Context(), params)
	require.NoError(t, err)
	later := open(t, p, 1000)

	clock.Advance(time.Hour - time.Second)
	require.Zero(t, p.ExpireDue())
	clock.Advance(time.Second)
	got, err := p.Client().V1CheckoutSessions.Retrieve(t.Context(), soon.ID, nil)
	require.NoError(t, err)
	require.Equal(t, stripe.CheckoutSessionStatusExpired, got.Status, "expired when read")
	require.Equal(t, []string{"checkout.session.expired"}, types(rcv.WaitReceived(1)))

	clock.Advance(23 * time.Hour)
	// Events reads no session: only the sweeper can expire this one.
	p.WaitFor("the sweeper to expire the other", func() bool { return len(p.Events()) == 2 })
	require.Equal(t, later.ID, sessionOf(t, rcv.WaitReceived(2)[1]).ID)
	require.Zero(t, p.ExpireDue(), "each expires once")
}
