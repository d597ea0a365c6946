// Package checkouts keeps members' online payments whole, holding them to the payment
// provider's word. Nothing a notification carries is recorded as it is: on a webhook, and when a
// checkout's page has expired, the provider is asked what became of the checkout, and what it
// answers is recorded on the account (Confirm, Settlement); and money that arrived when nothing
// was owed is given back once, ever.
//
// The saga runs under a lease like every processor (package processor). A checkout started gets
// a durable timer, "checkout:<id>", due ReconcileAfter after its page expires (a grace for the
// provider to end it); the checkout's payment or end cancels it. When it fires, the provider is
// asked: paid, failed or expired is recorded (SettleCheckout, which records a checkout's payment
// once however often it is told); a page still open past its expiry is ended at the provider
// first; a page completed with its money still on its way (a slow payment method) is asked about
// again later, each wait twice the last, up to a day. So a checkout costs the provider one
// question after it ends, not one every few minutes for as long as it stays open.
//
// A RefundDue is given back only while the account still shows it due: a refund recorded is
// never asked for again, however often the saga is replayed. A checkout may have more due after
// a refund (what was paid for a lost copy, given back when the copy comes back): each refund of
// it has a key of its own, made from what was given back before it (payments.RefundKeyAfter). Before asking the provider for a
// refund, the saga looks among the payment's refunds for one made under the checkout's refund
// key (payments.FindRefund), so that a crash between the provider's answer and its record, or a
// replay after the provider has forgotten the key, gives back nothing twice. Only a refund that
// succeeded is recorded as RefundIssued; a pending one is asked about again on a timer,
// "refund:<id>", and a refund.* webhook is read the same way, as a hint to ask; one that failed or
// was cancelled is recorded as RefundFailed, which leaves the member's credit on the account and
// parks, with the reason, where /status and the admin endpoints show it. The provider unreachable
// pauses the saga (errs.Unavailable) until it answers again.
package checkouts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/eventstore"
	"library/internal/payments"
	"library/internal/processor"
)

// Name is the saga's name: its lease, its checkpoint, its timers. Never rename it.
const Name = "checkouts"

// Accounts is what the saga needs of members' accounts (accounts.Service is one).
type Accounts interface {
	Get(ctx context.Context, memberID string) (accounts.Account, int64, error)
	SettleCheckout(ctx context.Context, memberID string, c accounts.SettleCheckout, o aggregate.Origin) (aggregate.Result, error)
	SettleRefund(ctx context.Context, memberID string, c accounts.SettleRefund, o aggregate.Origin) (aggregate.Result, error)
}

// Saga reconciles checkouts once their pages have expired and gives back excess payments.
type Saga struct {
	Accounts Accounts
	Provider payments.Provider
	// ReconcileAfter is how long after a checkout's page expires the provider is asked what
	// became of it; also the first wait before asking again about a payment still on its way.
	ReconcileAfter time.Duration
	// RefundRecheck is the first wait before asking again about a pending refund; each later
	// wait is twice the last, up to MaxWait.
	RefundRecheck time.Duration
	// Now is the clock of the rescheduling. Default time.Now.
	Now func() time.Time
}

// MaxWait is the longest the saga waits before asking the provider again about a payment or a
// refund still on its way.
const MaxWait = 24 * time.Hour

// Processor is the saga as a processor to run.
func (s Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: s, Types: []string{
		accounts.CheckoutStarted{}.EventType(), accounts.PaymentReceived{}.EventType(),
		accounts.CheckoutEnded{}.EventType(), accounts.RefundDue{}.EventType(),
		accounts.RefundIssued{}.EventType(), accounts.RefundFailed{}.EventType()}}
}

// actor is who the log says recorded what the saga did.
var actor = eventstore.Actor{Subject: Name, Role: "system"}

// Handle implements processor.Handler.
func (s Saga) Handle(ctx context.Context, e eventstore.Event) error {
	memberID, ok := accounts.MemberID(e)
	if !ok {
		return nil
	}
	decoded, err := accounts.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	switch ev := decoded.(type) {
	case accounts.CheckoutStarted:
		return s.watch(ctx, memberID, ev, e.RecordedAt)
	case accounts.PaymentReceived:
		if ev.CheckoutID == "" {
			return nil
		}
		return processor.Cancel(ctx, checkoutTimer(ev.CheckoutID))
	case accounts.CheckoutEnded:
		return processor.Cancel(ctx, checkoutTimer(ev.CheckoutID))
	case accounts.RefundDue:
		return s.giveBack(ctx, refundAsk{MemberID: memberID, CheckoutID: ev.CheckoutID}, e.Metadata.CorrelationID)
	case accounts.RefundIssued:
		if err := processor.Cancel(ctx, refundTimer(ev.CheckoutID)); err != nil {
			return err
		}
		// More may have come due while this refund was on its way (a lost copy's charge taken
		// back): it is a refund of its own, under the next key.
		return s.giveBack(ctx, refundAsk{MemberID: memberID, CheckoutID: ev.CheckoutID}, e.Metadata.CorrelationID)
	case accounts.RefundFailed:
		return processor.Park(fmt.Sprintf("the payment provider's refund %s for checkout %s of member %s was %s: "+
			"nothing was given back and the member keeps the credit; give it back by hand", ev.RefundID, ev.CheckoutID, memberID, ev.Status))
	}
	return nil
}

// Fire implements processor.TimerHandler: a checkout's page has expired, or a refund was
// pending, and the provider is asked what became of it.
func (s Saga) Fire(ctx context.Context, timer processor.Timer) error {
	switch {
	case strings.HasPrefix(timer.Key, checkoutTimerPrefix):
		return s.reconcile(ctx, timer)
	case strings.HasPrefix(timer.Key, refundTimerPrefix):
		return s.recheckRefund(ctx, timer)
	}
	return nil // a timer of no kind the saga makes: nothing it could do
}

func (s Saga) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// later is the wait after wait: twice as long, at least first, at most MaxWait.
func later(wait, first time.Duration) time.Duration {
	return min(max(2*wait, first, time.Millisecond), MaxWait)
}
