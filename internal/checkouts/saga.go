// Package checkouts is the saga that keeps members' online payments whole: it asks the payment
// provider about every checkout still open after a while, in case the provider's webhook was
// lost (an endpoint down for a day), and records what the provider says as the webhook would
// have; and it gives back, once, money that arrived when nothing was owed.
//
// It runs under a lease like every processor (package processor). A checkout started gets a
// durable timer, "checkout:<id>", due ReconcileAfter later; the checkout's payment or end
// cancels it. When it fires, the provider is asked: paid, expired or failed is recorded on
// the account (SettleCheckout, which records a checkout's payment once however often it is
// told), and a checkout still open is asked about again ReconcileAfter later. A RefundDue is
// given back through the provider under a key derived from the checkout (payments.RefundKey),
// so the provider refunds once however often it is asked, and recorded as RefundIssued under
// a command id of the refund's own. A refund that fails is tried again with backoff, then
// parked, where /status and the admin endpoints show it.
package checkouts

import (
	"context"
	"encoding/json"
	"fmt"
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
	SettleCheckout(ctx context.Context, memberID string, c accounts.SettleCheckout, o aggregate.Origin) (aggregate.Result, error)
	IssueRefund(ctx context.Context, memberID string, c accounts.IssueRefund, o aggregate.Origin) (aggregate.Result, error)
}

// Saga reconciles open checkouts and refunds excess payments.
type Saga struct {
	Accounts Accounts
	Provider payments.Provider
	// ReconcileAfter is how long a checkout stays open before the provider is asked about it.
	ReconcileAfter time.Duration
	// Now is the clock of the rescheduling. Default time.Now.
	Now func() time.Time
}

// Processor is the saga as a processor to run.
func (s Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: s, Types: []string{
		accounts.CheckoutStarted{}.EventType(), accounts.PaymentReceived{}.EventType(),
		accounts.CheckoutEnded{}.EventType(), accounts.RefundDue{}.EventType()}}
}

// actor is who the log says recorded what the saga did.
var actor = eventstore.Actor{Subject: Name, Role: "system"}

// reconcile is a timer's data: which checkout to ask the provider about.
type reconcile struct {
	MemberID   string `json:"memberId"`
	CheckoutID string `json:"checkoutId"`
	SessionID  string `json:"sessionId"`
}

func timerKey(checkoutID string) string { return "checkout:" + checkoutID }

// Handle implements processor.Handler.
func (s Saga) Handle(ctx context.Context, e eventstore.Event) error {
	memberID, ok := accounts.MemberID(e)
	if !ok {
		return nil
	}
	decoded, err := accounts.Decode(e)
	if err != nil {
		return processor.Park(fmt.Sprintf("%s can't be read: %v", e.Type, err))
	}
	switch ev := decoded.(type) {
	case accounts.CheckoutStarted:
		return processor.Schedule(ctx, timerKey(ev.CheckoutID), e.RecordedAt.Add(s.ReconcileAfter),
			reconcile{MemberID: memberID, CheckoutID: ev.CheckoutID, SessionID: ev.SessionID})
	case accounts.PaymentReceived:
		if ev.CheckoutID == "" {
			return nil
		}
		return processor.Cancel(ctx, timerKey(ev.CheckoutID))
	case accounts.CheckoutEnded:
		return processor.Cancel(ctx, timerKey(ev.CheckoutID))
	case accounts.RefundDue:
		return s.refund(ctx, memberID, ev, e.Metadata.CorrelationID)
	}
	return nil
}

// refund gives back a checkout's excess, once, and records it.
func (s Saga) refund(ctx context.Context, memberID string, due accounts.RefundDue, correlation string) error {
	refund, err := s.Provider.Refund(ctx, payments.RefundRequest{
		Key: payments.RefundKey(due.CheckoutID), PaymentID: due.PaymentID, Amount: due.Amount})
	if err != nil {
		return err // unavailable: paused; otherwise tried again later, then parked
	}
	origin := aggregate.Origin{CommandID: "refund:" + due.CheckoutID, CorrelationID: correlation, Actor: actor}
	_, err = s.Accounts.IssueRefund(ctx, memberID, accounts.IssueRefund{CheckoutID: due.CheckoutID, Amount: refund.Amount, RefundID: refund.ID}, origin)
	return err
}

// Fire implements processor.TimerHandler: a checkout has been open ReconcileAfter, and the
// provider is asked what became of it.
func (s Saga) Fire(ctx context.Context, timer processor.Timer) error {
	var r reconcile
	if err := json.Unmarshal(timer.Data, &r); err != nil {
		return processor.Park(fmt.Sprintf("timer %s can't be read: %v", timer.Key, err))
	}
	session, err := s.Provider.Session(ctx, r.SessionID)
	if err != nil {
		return err
	}
	settle := accounts.SettleCheckout{CheckoutID: r.CheckoutID, SessionID: r.SessionID}
	switch {
	case session.Paid:
		settle.Status, settle.Amount, settle.Currency, settle.PaymentID = accounts.CheckoutPaid, session.Amount, session.Currency, session.PaymentID
	case session.Status == payments.SessionExpired:
		settle.Status = accounts.CheckoutExpired
	default: // still open, or complete and its money still to come: ask again later
		return processor.Schedule(ctx, timer.Key, s.now().Add(s.ReconcileAfter), r)
	}
	origin := aggregate.Origin{CorrelationID: "reconcile-" + r.CheckoutID, Actor: actor}
	// A refusal (the account erased, the session not the checkout's) can't be settled by
	// trying again; it fails the timer, which /status shows failing for an operator to see.
	_, err = s.Accounts.SettleCheckout(ctx, r.MemberID, settle, origin)
	return err
}

func (s Saga) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}
