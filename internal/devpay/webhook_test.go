package devpay_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"

	"library/internal/devpay"
	"library/internal/testkit/paytest"
)

// started is a provider whose events go to one receiver.
func started(t *testing.T, opts ...paytest.Options) (*paytest.Provider, *paytest.Receiver) {
	t.Helper()
	p := paytest.Start(t, opts...)
	rcv := paytest.NewReceiver(t, p.WebhookSecret())
	require.NoError(t, p.SetWebhookURLs([]string{rcv.URL}))
	return p, rcv
}

func TestWebhooksAreStripeEventsThatStripeGoAccepts(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	s := open(t, p, 1250)
	paid, err := p.Pay(s.ID)
	require.NoError(t, err)

	got := rcv.WaitReceived(1)[0]
	require.NoError(t, got.Err, "webhook.ConstructEvent refused it")
	require.Equal(t, 200, got.Status)
	ev := got.Event
	require.True(t, strings.HasPrefix(ev.ID, "evt_"), ev.ID)
	require.Equal(t, "event", ev.Object)
	require.Equal(t, stripe.APIVersion, ev.APIVersion)
	require.Equal(t, stripe.EventTypeCheckoutSessionCompleted, ev.Type)
	require.False(t, ev.Livemode)
	require.EqualValues(t, 1, ev.PendingWebhooks)
	require.NotNil(t, ev.Request)
	session := sessionOf(t, got)
	require.Equal(t, s.ID, session.ID)
	require.Equal(t, stripe.CheckoutSessionPaymentStatusPaid, session.PaymentStatus)
	require.Equal(t, paid.PaymentIntent, session.PaymentIntent.ID)
	require.Equal(t, "co_checkout1", session.ClientReferenceID)
	require.Equal(t, "m-alice", session.Metadata["member_id"])

	_, err = webhook.ConstructEvent(got.Payload, got.Signature, "whsec_other")
	require.Error(t, err, "signed with the provider's secret alone")
	stamp, _, _ := strings.Cut(strings.TrimPrefix(got.Signature, "t="), ",")
	at, err := strconv.ParseInt(stamp, 10, 64)
	require.NoError(t, err, got.Signature)
	require.Equal(t, devpay.Sign(got.Payload, p.WebhookSecret(), time.Unix(at, 0)), got.Signature)
	events := p.Events()
	require.Len(t, events, 1)
	require.Equal(t, ev.ID, events[0].ID)
	require.Equal(t, devpay.EventSent, events[0].State)
	require.JSONEq(t, string(events[0].Payload), string(got.Payload))
}

func TestExpiringAndRefundingSendTheirEvents(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	s := open(t, p, 1000)
	_, err := p.Client().V1CheckoutSessions.Expire(t.Context(), s.ID, nil)
	require.NoError(t, err)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	r := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(100)}
	r.SetIdempotencyKey("library-refund-co_1")
	refund, err := p.Client().V1Refunds.Create(t.Context(), r)
	require.NoError(t, err)

	got := rcv.WaitReceived(3)
	require.Equal(t, []string{"checkout.session.expired", "checkout.session.completed", "refund.created"}, types(got))
	require.Equal(t, stripe.CheckoutSessionStatusExpired, sessionOf(t, got[0]).Status)
	require.NotEmpty(t, got[0].Event.Request.ID, "made by an API call")
	var rf stripe.Refund
	require.NoError(t, json.Unmarshal(got[2].Event.Data.Raw, &rf))
	require.Equal(t, refund.ID, rf.ID)
	require.EqualValues(t, 100, rf.Amount)
	require.Equal(t, "library-refund-co_1", got[2].Event.Request.IdempotencyKey)
}

// Deliveries to one URL keep their order: a delivery that fails is retried, doubling its wait,
// before the next event is sent.
func TestAFailedDeliveryIsRetriedBeforeTheNextEvent(t *testing.T) {
	t.Parallel()
	p, rcv := started(t, paytest.Options{RetryFirst: 50 * time.Millisecond})
	rcv.Fail(500, 0) // a 500, then a connection closed without an answer
	first, second := open(t, p, 1000), open(t, p, 2000)
	_, err := p.Pay(first.ID)
	require.NoError(t, err)
	_, err = p.Expire(second.ID)
	require.NoError(t, err)

	got := rcv.WaitReceived(4)
	require.Equal(t, []string{"checkout.session.completed", "checkout.session.completed", "checkout.session.completed",
		"checkout.session.expired"}, types(got))
	require.Equal(t, []int{500, 0, 200, 200}, []int{got[0].Status, got[1].Status, got[2].Status, got[3].Status})
	require.Equal(t, got[0].Event.ID, got[2].Event.ID, "the same event, again")
	require.GreaterOrEqual(t, got[1].At.Sub(got[0].At), 50*time.Millisecond, "RetryFirst")
	require.GreaterOrEqual(t, got[2].At.Sub(got[1].At), 100*time.Millisecond, "then twice as long")
	p.WaitIdle()

	attempts := p.Deliveries()
	require.Len(t, attempts, 4)
	require.Equal(t, []int{1, 2, 3, 1}, []int{attempts[0].Attempt, attempts[1].Attempt, attempts[2].Attempt, attempts[3].Attempt})
	require.Equal(t, 500, attempts[0].StatusCode)
	require.Equal(t, 0, attempts[1].StatusCode)
	require.NotEmpty(t, attempts[1].Error)
	require.True(t, attempts[2].OK())
	require.Equal(t, rcv.URL, attempts[3].URL)
}

func TestADeliveryIsGivenUpAfterItsAttempts(t *testing.T) {
	t.Parallel()
	p, rcv := started(t, paytest.Options{Attempts: 3})
	rcv.Fail(503, 503, 503)
	_, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	_, err = p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)

	got := rcv.WaitReceived(4)
	require.Equal(t, []int{503, 503, 503, 200}, []int{got[0].Status, got[1].Status, got[2].Status, got[3].Status})
	require.NotEqual(t, got[0].Event.ID, got[3].Event.ID, "the first was given up, the second sent")
	p.WaitIdle()
	require.Len(t, rcv.Received(), 4)
}

func TestEachEventMaySendCopiesInOrder(t *testing.T) {
	t.Parallel()
	p, rcv := started(t)
	p.SetCopies(3, false)
	_, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	got := rcv.WaitReceived(3)
	require.Equal(t, got[0].Event.ID, got[1].Event.ID)
	require.Equal(t, got[0].Event.ID, got[2].Event.ID)
	require.Len(t, p.WaitDelivered("checkout.session.completed", 3), 3)
	require.Equal(t, 1, rcv.MaxInFlight(), "one after the other")
}

func TestCopiesSentTogetherReachEveryURLAtOnce(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	a, b := paytest.NewReceiver(t, p.WebhookSecret()), paytest.NewReceiver(t, p.WebhookSecret())
	require.NoError(t, p.SetWebhookURLs([]string{a.URL, b.URL}))
	a.Gate(3)
	b.Gate(3)
	p.SetCopies(3, true)
	_, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)

	for _, rcv := range []*paytest.Receiver{a, b} {
		got := rcv.WaitReceived(3)
		require.Equal(t, 3, rcv.MaxInFlight(), "all three copies at once")
		require.Equal(t, got[0].Event.ID, got[2].Event.ID)
		require.EqualValues(t, 2, got[0].Event.PendingWebhooks)
	}
}
