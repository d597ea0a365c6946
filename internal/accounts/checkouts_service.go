package accounts

import (
	"context"
	"time"

	"library/internal/aggregate"
	"library/internal/validate"
)

// StartCheckout starts the member paying online under checkoutID, which the caller derives from
// the command's key, so that a retry is the same checkout. open asks the payment provider for
// its page; it is called only when the checkout may start, under a key of the checkout's own,
// so that calling it again (the command decided again after a conflict) makes no second page.
//
// A member may have at most Limits.OpenCheckouts checkouts open that can still be paid at now.
// The account is read from the log first, and a checkout that may not start is refused then:
// the command itself may decide on the state this replica keeps, and learn that the stream
// moved on only at its append, after the provider was asked for a page.
func (s *Service) StartCheckout(ctx context.Context, memberID, checkoutID string, c StartCheckout, o aggregate.Origin, now time.Time,
	open func(ctx context.Context, amount int64) (CheckoutStarted, error)) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	loaded, err := s.repo.Load(ctx, memberID)
	if err != nil {
		return aggregate.Result{}, err
	}
	if _, started := loaded.State.checkouts[checkoutID]; !started && !loaded.State.Erased {
		if err := c.Check(loaded.State, s.limits.OpenCheckouts, now); err != nil {
			return aggregate.Result{}, err
		}
	}
	decide := func(a Account) ([]Event, error) {
		return c.Decide(a, checkoutID, s.limits.OpenCheckouts, now, func(amount int64) (CheckoutStarted, error) { return open(ctx, amount) })
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "startCheckout", Origin: o, Payload: c, Validate: c.Validate, Decide: guarded(memberID, decide),
	})
}

// SettleCheckout records what the payment provider says became of a checkout.
func (s *Service) SettleCheckout(ctx context.Context, memberID string, c SettleCheckout, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "settleCheckout", Origin: o, Payload: c, Validate: c.Validate, Decide: guarded(memberID, c.Decide),
	})
}

// SettleRefund records what the provider says became of the refund of a checkout's excess.
// Refunds are made for money already recorded, so an erased member's account still records
// them.
func (s *Service) SettleRefund(ctx context.Context, memberID string, c SettleRefund, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "settleRefund", Origin: o, Payload: c, Validate: c.Validate, Decide: c.Decide,
	})
}
