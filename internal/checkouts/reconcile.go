package checkouts

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/payments"
	"library/internal/processor"
)

const checkoutTimerPrefix = "checkout:"

func checkoutTimer(checkoutID string) string { return checkoutTimerPrefix + checkoutID }

// reconcileAsk is a checkout timer's data: which checkout to ask the provider about, and how
// long the last wait was, when its payment was on its way.
type reconcileAsk struct {
	MemberID   string        `json:"memberId"`
	CheckoutID string        `json:"checkoutId"`
	SessionID  string        `json:"sessionId"`
	Wait       time.Duration `json:"wait,omitempty"`
}

// watch schedules the question about a checkout for when its page has expired, and a grace
// after. A checkout the account no longer shows open (a replay of the saga, long after) needs
// none. A checkout from before pages had an expiry is asked about ReconcileAfter after it
// started, and then when its page expires.
func (s Saga) watch(ctx context.Context, memberID string, started accounts.CheckoutStarted, recordedAt time.Time) error {
	account, _, err := s.Accounts.Get(ctx, memberID)
	if err != nil {
		return err
	}
	if c, ok := account.Checkout(started.CheckoutID); !ok || c.Status != accounts.CheckoutOpen {
		return nil
	}
	at := recordedAt
	if !started.ExpiresAt.IsZero() {
		at = started.ExpiresAt
	}
	return processor.Schedule(ctx, checkoutTimer(started.CheckoutID), at.Add(s.ReconcileAfter),
		reconcileAsk{MemberID: memberID, CheckoutID: started.CheckoutID, SessionID: started.SessionID})
}

// reconcile asks the provider what became of a checkout and records it. A page still open past
// its expiry is ended at the provider first, so that it can't be paid once recorded as expired;
// one still open before it (a checkout from before pages had an expiry) is asked about again
// when it expires; a payment still on its way, again later and later.
func (s Saga) reconcile(ctx context.Context, timer processor.Timer) error {
	var ask reconcileAsk
	if err := json.Unmarshal(timer.Data, &ask); err != nil {
		return nil // nothing could ever be done with it: forgotten (see processor's Timers)
	}
	session, err := s.Provider.Session(ctx, ask.SessionID)
	if err != nil {
		return err
	}
	if session.Status == payments.SessionOpen {
		if now := s.now(); now.Before(session.ExpiresAt) {
			return processor.Schedule(ctx, timer.Key, session.ExpiresAt.Add(s.ReconcileAfter), ask)
		}
		if session, err = s.Provider.ExpireSession(ctx, ask.SessionID); err != nil {
			return err
		}
	}
	settle, ok := Settlement(session)
	if !ok { // its money on its way: ask again later
		ask.Wait = later(ask.Wait, s.ReconcileAfter)
		return processor.Schedule(ctx, timer.Key, s.now().Add(ask.Wait), ask)
	}
	// The session must be the checkout's: the timer's member and checkout came from the log.
	settle.CheckoutID = ask.CheckoutID
	origin := aggregate.Origin{CorrelationID: "reconcile-" + ask.CheckoutID, Actor: actor}
	// A refusal (the session not the checkout's, another amount) can't be settled by trying
	// again; it fails the timer, which /status shows failing for an operator to see.
	_, err = s.Accounts.SettleCheckout(ctx, ask.MemberID, settle, origin)
	return err
}

// Settlement is what an account records of a checkout session as the provider has it now: paid
// (the money arrived), failed (its slow payment was refused) or expired; ok is false while it is
// undecided (open, or complete with its money still on its way).
func Settlement(s payments.Session) (settle accounts.SettleCheckout, ok bool) {
	settle = accounts.SettleCheckout{CheckoutID: s.CheckoutID, SessionID: s.ID}
	switch {
	case s.Paid:
		settle.Status, settle.Amount, settle.Currency, settle.PaymentID = accounts.CheckoutPaid, s.Amount, s.Currency, s.PaymentID
	case s.Failed:
		settle.Status = accounts.CheckoutFailed
	case s.Status == payments.SessionExpired:
		settle.Status = accounts.CheckoutExpired
	default:
		return accounts.SettleCheckout{}, false
	}
	return settle, true
}

// Confirm records what the provider says, when a notification says there may be something to
// record: the notification is only a hint, and what it carries is never recorded. It serves the
// webhook endpoint.
type Confirm struct {
	Accounts Accounts
	Provider payments.Provider
}

// Checkout asks the provider about a checkout session and records what it says now, on the
// account its metadata names; nothing while the session is undecided, or is none of the
// service's. The provider unreachable is errs.Unavailable, and nothing is recorded.
func (c Confirm) Checkout(ctx context.Context, sessionID string, o aggregate.Origin) error {
	session, err := c.Provider.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	settle, ok := Settlement(session)
	if !ok || session.MemberID == "" || session.CheckoutID == "" {
		return nil
	}
	_, err = c.Accounts.SettleCheckout(ctx, session.MemberID, settle, o)
	return err
}

// Refund asks the provider about a refund and records what it says now on the account its
// metadata names: succeeded, failed or cancelled; nothing while it is pending, or for a refund
// the service did not make.
func (c Confirm) Refund(ctx context.Context, refundID string, o aggregate.Origin) error {
	refund, err := c.Provider.GetRefund(ctx, refundID)
	if err != nil {
		return err
	}
	if refund.CheckoutID == "" || refund.MemberID == "" {
		return nil
	}
	after, ok := payments.RefundedBefore(refund.CheckoutID, refund.Key)
	if !ok {
		return nil
	}
	return settleRefund(ctx, c.Accounts, refund.MemberID, refund, after, o)
}

// settleRefund records a refund whose status is final, asked for after what the checkout had
// given back before, under a command id of the checkout's, the status's and (for a refund after
// the first) that amount's own, so that the saga and a webhook telling the same record it once.
func settleRefund(ctx context.Context, a Accounts, memberID string, refund payments.Refund, after int64, o aggregate.Origin) error {
	if !refund.Status.Final() {
		return nil
	}
	o.CommandID = fmt.Sprintf("refund-settled:%s:%s", refund.CheckoutID, refund.Status)
	if after > 0 {
		o.CommandID += fmt.Sprintf(":after-%d", after)
	}
	_, err := a.SettleRefund(ctx, memberID, accounts.SettleRefund{CheckoutID: refund.CheckoutID, RefundID: refund.ID,
		Amount: refund.Amount, Status: string(refund.Status), After: after}, o)
	return err
}
