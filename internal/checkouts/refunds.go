package checkouts

import (
	"context"
	"encoding/json"
	"time"

	"library/internal/aggregate"
	"library/internal/payments"
	"library/internal/processor"
)

const refundTimerPrefix = "refund:"

func refundTimer(checkoutID string) string { return refundTimerPrefix + checkoutID }

// refundAsk is a refund's timer's data: whose checkout's excess to give back, and how long the
// last wait was.
type refundAsk struct {
	MemberID   string        `json:"memberId"`
	CheckoutID string        `json:"checkoutId"`
	Wait       time.Duration `json:"wait"`
}

// giveBack gives back what a checkout has due, once ever: nothing when the account shows it
// given back (or failed for good), the refund made before under the checkout's key when the
// provider has one, a new one otherwise; then records it, or asks again later while it is
// pending. The key is the checkout's next refund's (payments.RefundKeyAfter what it gave back
// before), so that more due later (what was paid for a lost copy that came back) is a refund
// of its own, and each is made once.
func (s Saga) giveBack(ctx context.Context, ask refundAsk, correlation string) error {
	account, _, err := s.Accounts.Get(ctx, ask.MemberID)
	if err != nil {
		return err
	}
	co, ok := account.Checkout(ask.CheckoutID)
	if !ok || co.RefundDue <= 0 || co.RefundFailed != "" {
		return nil
	}
	key := payments.RefundKeyAfter(co.ID, co.Refunded)
	refund, found, err := s.Provider.FindRefund(ctx, co.PaymentID, key)
	if err != nil {
		return err
	}
	if !found {
		refund, err = s.Provider.Refund(ctx, payments.RefundRequest{Key: key, PaymentID: co.PaymentID, Amount: co.RefundDue,
			CheckoutID: co.ID, MemberID: ask.MemberID})
		if err != nil {
			return err // unavailable: paused; otherwise tried again later, then parked
		}
	}
	if !refund.Status.Final() {
		ask.Wait = later(ask.Wait, s.RefundRecheck)
		return processor.Schedule(ctx, refundTimer(co.ID), s.now().Add(ask.Wait), ask)
	}
	refund.CheckoutID = co.ID // the account's, whatever the refund's metadata says
	return settleRefund(ctx, s.Accounts, ask.MemberID, refund, co.Refunded, aggregate.Origin{CorrelationID: correlation, Actor: actor})
}

// recheckRefund asks again about a refund that was pending.
func (s Saga) recheckRefund(ctx context.Context, timer processor.Timer) error {
	var ask refundAsk
	if err := json.Unmarshal(timer.Data, &ask); err != nil {
		return nil // nothing could ever be done with it: forgotten (see processor's Timers)
	}
	return s.giveBack(ctx, ask, "refund-"+ask.CheckoutID)
}
