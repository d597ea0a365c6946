package stripepay

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"

	"library/internal/errs"
	"library/internal/payments"
)

// Webhook reads a Stripe event from its raw body and Stripe-Signature header once the
// signature verifies with the signing secret and was made within payments.Tolerance of now,
// before or after. The checkout.session.* events carry their session, the refund.* events
// their refund's id; any other event only its id and type.
func (p *Provider) Webhook(payload []byte, signature string) (payments.Notification, error) {
	event, err := webhook.ConstructEventWithOptions(payload, signature, p.webhookSecret,
		webhook.ConstructEventOptions{Tolerance: payments.Tolerance, IgnoreAPIVersionMismatch: true})
	if err != nil {
		return payments.Notification{}, refused(err)
	}
	// stripe-go refuses only a signature older than the tolerance; one from further ahead
	// than that is refused here, as a stale one is.
	if signedAt, ok := signedAt(signature); !ok || signedAt.After(p.now().Add(payments.Tolerance)) {
		return payments.Notification{}, errs.E(errs.InvalidRequest, "the webhook's signature is dated more than %v ahead", payments.Tolerance)
	}
	// stripe-go's own check of the version is skipped above only to be made here, where its
	// refusal can be the service's error with a detail that says what to do.
	if !sameReleaseTrain(event.APIVersion, stripe.APIVersion) {
		return payments.Notification{}, errs.E(errs.Internal,
			"a Stripe event is rendered in API version %q, but the service reads %q: create the webhook endpoint with api_version %s",
			event.APIVersion, stripe.APIVersion, stripe.APIVersion)
	}
	n := payments.Notification{ID: event.ID, Type: payments.NotificationType(event.Type)}
	if n.Type.IsRefund() {
		var r stripe.Refund
		if event.Data == nil || json.Unmarshal(event.Data.Raw, &r) != nil || r.Object != "refund" || r.ID == "" {
			return payments.Notification{}, errs.E(errs.InvalidRequest, "a %s event without a refund", event.Type)
		}
		n.RefundID = r.ID
		return n, nil
	}
	if !strings.HasPrefix(string(event.Type), "checkout.session.") {
		return n, nil
	}
	var s stripe.CheckoutSession
	if event.Data == nil || json.Unmarshal(event.Data.Raw, &s) != nil || s.Object != "checkout.session" {
		return payments.Notification{}, errs.E(errs.InvalidRequest, "a %s event without a checkout session", event.Type)
	}
	n.Session = sessionOf(&s)
	return n, nil
}

// signedAt is the time in a Stripe-Signature header (t=<unix seconds>, among its other
// parts); ok is false when it has none that can be read.
func signedAt(header string) (time.Time, bool) {
	for part := range strings.SplitSeq(header, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			unix, err := strconv.ParseInt(v, 10, 64)
			return time.Unix(unix, 0), err == nil
		}
	}
	return time.Time{}, false
}

// sameReleaseTrain is stripe-go's test of an event's version: the same release train (the
// part after the dot), within which Stripe makes no breaking change.
func sameReleaseTrain(event, sdk string) bool {
	_, eventTrain, ok := strings.Cut(event, ".")
	_, sdkTrain, _ := strings.Cut(sdk, ".")
	return ok && eventTrain == sdkTrain
}

// refused says why a webhook was not read, without the secret, the signature or the body.
func refused(err error) error {
	switch {
	case errors.Is(err, webhook.ErrNotSigned):
		return errs.E(errs.InvalidRequest, "the webhook has no Stripe-Signature header")
	case errors.Is(err, webhook.ErrInvalidHeader):
		return errs.E(errs.InvalidRequest, "the webhook's Stripe-Signature header is malformed")
	case errors.Is(err, webhook.ErrTooOld):
		return errs.E(errs.InvalidRequest, "the webhook's signature is older than %v", payments.Tolerance)
	case errors.Is(err, webhook.ErrNoValidSignature):
		return errs.E(errs.InvalidRequest, "the webhook's signature does not verify")
	default:
		// Signed, but not an event stripe-go can read (not JSON, or a v2 event notification).
		return errs.E(errs.InvalidRequest, "the webhook is not a Stripe event")
	}
}
