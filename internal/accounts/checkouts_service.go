package accounts

import (
	"context"

	"library/internal/aggregate"
	"library/internal/validate"
)

// StartCheckout starts the member paying online under checkoutID, which the caller derives from
// the command's key, so that a retry is the same checkout. open asks the payment provider for
// its page; it is called only when the checkout may start, under a key of the checkout's own,
// so that calling it again (the command decided again after a conflict) makes no second page.
func (s *Service) StartCheckout(ctx context.Context, memberID, checkoutID string, c StartCheckout, o aggregate.Origin,
	open func(ctx context.Context, amount int64) (CheckoutStarted, error)) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	decide := func(a Account) ([]Event, error) {
		return c.Decide(a, checkoutID, func(amount int64) (CheckoutStarted, error) { return open(ctx, amount) })
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

// IssueRefund records that the provider gave back what a checkout had due. Refunds are made for
// money already recorded, so an erased member's account still records them.
func (s *Service) IssueRefund(ctx context.Context, memberID string, c IssueRefund, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "issueRefund", Origin: o, Payload: c, Decide: c.Decide,
	})
}
