package stripepay

import (
	"context"

	"github.com/stripe/stripe-go/v84"

	"library/internal/errs"
	"library/internal/payments"
)

// Refund refunds part or all of a PaymentIntent, or gets back the refund made before under
// r.Key while Stripe keeps the key (24 hours). The key, the checkout and the member are kept
// in the refund's metadata: FindRefund finds it by the key however long ago it was made.
func (p *Provider) Refund(ctx context.Context, r payments.RefundRequest) (payments.Refund, error) {
	switch {
	case r.Key == "":
		return payments.Refund{}, errs.E(errs.Internal, "a refund needs an idempotency key")
	case r.PaymentID == "":
		return payments.Refund{}, errs.E(errs.Internal, "a refund needs the payment it gives back")
	case r.Amount <= 0:
		return payments.Refund{}, errs.E(errs.InvalidRequest, "a refund's amount must be positive")
	}
	meta := map[string]string{metaRefundKey: r.Key}
	if r.CheckoutID != "" {
		meta[metaCheckoutID] = r.CheckoutID
	}
	if r.MemberID != "" {
		meta[metaMemberID] = r.MemberID
	}
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(r.PaymentID),
		Amount:        stripe.Int64(r.Amount),
		Metadata:      meta,
	}
	params.SetIdempotencyKey(r.Key)
	refund, err := p.client.V1Refunds.Create(ctx, params)
	if err != nil {
		return payments.Refund{}, fail(err, "refund a payment")
	}
	return refundOf(refund), nil
}

// FindRefund walks a PaymentIntent's refunds, newest first, page by page, for the one whose
// metadata holds key.
func (p *Provider) FindRefund(ctx context.Context, paymentID, key string) (payments.Refund, bool, error) {
	if paymentID == "" || key == "" {
		return payments.Refund{}, false, errs.E(errs.Internal, "finding a refund needs its payment and its key")
	}
	params := &stripe.RefundListParams{PaymentIntent: stripe.String(paymentID)}
	params.Limit = stripe.Int64(100)
	for refund, err := range p.client.V1Refunds.List(ctx, params) {
		if err != nil {
			return payments.Refund{}, false, fail(err, "list a payment's refunds")
		}
		if refund.Metadata[metaRefundKey] == key {
			return refundOf(refund), true, nil
		}
	}
	return payments.Refund{}, false, nil
}

// GetRefund reads a refund as Stripe has it now.
func (p *Provider) GetRefund(ctx context.Context, refundID string) (payments.Refund, error) {
	if refundID == "" {
		return payments.Refund{}, errs.E(errs.InvalidRequest, "no refund id")
	}
	refund, err := p.client.V1Refunds.Retrieve(ctx, refundID, nil)
	if err != nil {
		return payments.Refund{}, fail(err, "read a refund")
	}
	return refundOf(refund), nil
}

// refundOf is a Refund in the service's words.
func refundOf(r *stripe.Refund) payments.Refund {
	out := payments.Refund{
		ID: r.ID, Amount: r.Amount, Status: payments.RefundStatus(r.Status),
		Key: r.Metadata[metaRefundKey], CheckoutID: r.Metadata[metaCheckoutID], MemberID: r.Metadata[metaMemberID],
	}
	if r.PaymentIntent != nil {
		out.PaymentID = r.PaymentIntent.ID
	}
	return out
}
