package stripepay

import (
	"context"
	"strings"
	"time"

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
	now           func() time.Time
}

var _ payments.Provider = (*Provider)(nil)

// New returns a Provider, or an error naming the field of cfg that cannot work.
func New(cfg Config) (*Provider, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Provider{
		client:        stripe.NewClient(cfg.SecretKey, stripe.WithBackends(cfg.backends())),
		webhookSecret: cfg.WebhookSecret,
		now:           now,
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
	if !r.ExpiresAt.IsZero() {
		params.ExpiresAt = stripe.Int64(r.ExpiresAt.Unix())
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
