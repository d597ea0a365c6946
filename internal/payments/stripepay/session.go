package stripepay

import (
	"context"
	"time"

	"github.com/stripe/stripe-go/v84"

	"library/internal/errs"
	"library/internal/payments"
)

// Session reads a Checkout Session as Stripe has it now, with its PaymentIntent expanded, so
// that a slow payment that failed after the page is told from one still on its way.
func (p *Provider) Session(ctx context.Context, sessionID string) (payments.Session, error) {
	if sessionID == "" {
		return payments.Session{}, errs.E(errs.InvalidRequest, "no checkout session id")
	}
	params := &stripe.CheckoutSessionRetrieveParams{}
	params.AddExpand("payment_intent")
	s, err := p.client.V1CheckoutSessions.Retrieve(ctx, sessionID, params)
	if err != nil {
		return payments.Session{}, fail(err, "read a checkout session")
	}
	return sessionOf(s), nil
}

// ExpireSession expires an open Checkout Session, so that its page takes no payment any more.
// Stripe refuses to expire a session that is not open (one paid a moment ago); that session is
// read and returned as it is.
func (p *Provider) ExpireSession(ctx context.Context, sessionID string) (payments.Session, error) {
	if sessionID == "" {
		return payments.Session{}, errs.E(errs.InvalidRequest, "no checkout session id")
	}
	params := &stripe.CheckoutSessionExpireParams{}
	params.AddExpand("payment_intent")
	s, err := p.client.V1CheckoutSessions.Expire(ctx, sessionID, params)
	if err == nil {
		return sessionOf(s), nil
	}
	failure := fail(err, "expire a checkout session")
	if !errs.Is(failure, errs.InvalidRequest) {
		return payments.Session{}, failure
	}
	now, readErr := p.Session(ctx, sessionID)
	if readErr != nil || now.Status == payments.SessionOpen {
		return payments.Session{}, failure
	}
	return now, nil
}

// sessionOf is a Checkout Session in the service's words. Its member is the metadata's, or
// client_reference_id when a session has no metadata (one made by hand in the dashboard).
func sessionOf(s *stripe.CheckoutSession) payments.Session {
	complete := s.Status == stripe.CheckoutSessionStatusComplete
	out := payments.Session{
		ID:         s.ID,
		URL:        s.URL,
		CheckoutID: s.Metadata[metaCheckoutID],
		MemberID:   s.Metadata[metaMemberID],
		Amount:     s.AmountTotal,
		Currency:   string(s.Currency),
		Status:     payments.SessionStatus(s.Status),
		ExpiresAt:  time.Unix(s.ExpiresAt, 0),
		// Stripe says paid only of a complete session; both are asked, so a session that is
		// not complete is never taken for money received.
		Paid: complete && s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid,
	}
	if out.MemberID == "" {
		out.MemberID = s.ClientReferenceID
	}
	if s.PaymentIntent != nil { // an id, or the object when expanded: stripe-go fills ID either way
		out.PaymentID = s.PaymentIntent.ID
		// A complete session whose payment went back to wanting a payment method, or was
		// cancelled, will never be paid: its slow payment failed. Known only when expanded.
		switch s.PaymentIntent.Status {
		case stripe.PaymentIntentStatusRequiresPaymentMethod, stripe.PaymentIntentStatusCanceled:
			out.Failed = complete && !out.Paid
		}
	}
	return out
}
