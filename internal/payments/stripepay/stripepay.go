package stripepay

import (
	"context"
	"strings"

	"github.com/stripe/stripe-go/v84"

	"library/internal/errs"
	"library/internal/payments"
)

// The metadata keys the adapter writes on sessions, their PaymentIntents and refunds.
const (
	metaCheckoutID = "checkout_id"
	metaMemberID   = "member_id"
	metaRefundKey  = "refund_key"
)

// Provider is payments.Provider on Stripe. It is safe for concurrent use.
type Provider struct {
	client        *stripe.Client
	webhookSecret string
}

var _ payments.Provider = (*Provider)(nil)

// New returns a Provider, or an error naming the field of cfg that cannot work.
func New(cfg Config) (*Provider, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Provider{
		client:        stripe.NewClient(cfg.SecretKey, stripe.WithBackends(cfg.backends())),
		webhookSecret: cfg.WebhookSecret,
	}, nil
}

// StartCheckout makes a Checkout Session in payment mode, or gets back the one made before
// under r.Key (Stripe keeps an idempotency key for 24 hours at least).
func (p *Provider) StartCheckout(ctx context.Context, r payments.CheckoutRequest) (payments.Session, error) {
	if err := checkCheckout(r); err != nil {
		return payments.Session{}, err
	}
	meta := map[string]string{metaCheckoutID: r.CheckoutID, metaMemberID: r.MemberID}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(stripe.CheckoutSessionModePayment),
		SuccessURL:        stripe.String(r.SuccessURL),
		CancelURL:         stripe.String(r.CancelURL),
		ClientReferenceID: stripe.String(r.MemberID),
		Metadata:          meta,
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(strings.ToLower(r.Currency)),
				UnitAmount:  stripe.Int64(r.Amount),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(r.Description)},
			},
			Quantity: stripe.Int64(1),
		}},
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{Metadata: meta},
	}
	params.SetIdempotencyKey(r.Key)
	s, err := p.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return payments.Session{}, fail(err, "start a checkout")
	}
	return sessionOf(s), nil
}

// checkCheckout refuses a request Stripe would refuse anyway, or that would make a session
// the service could not match to its checkout, before anything is sent.
func checkCheckout(r payments.CheckoutRequest) error {
	switch {
	case r.Key == "":
		return errs.E(errs.Internal, "a checkout needs an idempotency key")
	case r.CheckoutID == "" || r.MemberID == "":
		return errs.E(errs.Internal, "a checkout needs its checkout id and member id")
	case r.Amount <= 0:
		return errs.E(errs.InvalidRequest, "a checkout's amount must be positive")
	case len(r.Currency) != 3:
		return errs.E(errs.InvalidRequest, "a checkout's currency must be a three-letter ISO 4217 code")
	case r.Description == "":
		return errs.E(errs.InvalidRequest, "a checkout needs a description")
	case r.SuccessURL == "" || r.CancelURL == "":
		return errs.E(errs.Internal, "a checkout needs its success and cancel URLs")
	}
	return nil
}

// Session reads a Checkout Session as Stripe has it now.
func (p *Provider) Session(ctx context.Context, sessionID string) (payments.Session, error) {
	if sessionID == "" {
		return payments.Session{}, errs.E(errs.InvalidRequest, "no checkout session id")
	}
	s, err := p.client.V1CheckoutSessions.Retrieve(ctx, sessionID, nil)
	if err != nil {
		return payments.Session{}, fail(err, "read a checkout session")
	}
	return sessionOf(s), nil
}

// Refund refunds part or all of a PaymentIntent, or gets back the refund made before under
// r.Key.
func (p *Provider) Refund(ctx context.Context, r payments.RefundRequest) (payments.Refund, error) {
	switch {
	case r.Key == "":
		return payments.Refund{}, errs.E(errs.Internal, "a refund needs an idempotency key")
	case r.PaymentID == "":
		return payments.Refund{}, errs.E(errs.Internal, "a refund needs the payment it gives back")
	case r.Amount <= 0:
		return payments.Refund{}, errs.E(errs.InvalidRequest, "a refund's amount must be positive")
	}
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(r.PaymentID),
		Amount:        stripe.Int64(r.Amount),
		Metadata:      map[string]string{metaRefundKey: r.Key},
	}
	params.SetIdempotencyKey(r.Key)
	refund, err := p.client.V1Refunds.Create(ctx, params)
	if err != nil {
		return payments.Refund{}, fail(err, "refund a payment")
	}
	return payments.Refund{ID: refund.ID, Amount: refund.Amount, Status: string(refund.Status)}, nil
}

// sessionOf is a Checkout Session in the service's words. Its member is the metadata's, or
// client_reference_id when a session has no metadata (one made by hand in the dashboard).
func sessionOf(s *stripe.CheckoutSession) payments.Session {
	out := payments.Session{
		ID:         s.ID,
		URL:        s.URL,
		CheckoutID: s.Metadata[metaCheckoutID],
		MemberID:   s.Metadata[metaMemberID],
		Amount:     s.AmountTotal,
		Currency:   string(s.Currency),
		Status:     payments.SessionStatus(s.Status),
		// Stripe says paid only of a complete session; both are asked, so a session that is
		// not complete is never taken for money received.
		Paid: s.Status == stripe.CheckoutSessionStatusComplete &&
			s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid,
	}
	if out.MemberID == "" {
		out.MemberID = s.ClientReferenceID
	}
	if s.PaymentIntent != nil { // an id, or the object when expanded: stripe-go fills ID either way
		out.PaymentID = s.PaymentIntent.ID
	}
	return out
}
