package payments

import (
	"strconv"
	"strings"
)

// RefundRequest asks to give back Amount of a payment.
type RefundRequest struct {
	// Key makes the request idempotent at the provider: RefundKeyAfter of the checkout. It is also
	// kept with the refund, for FindRefund.
	Key       string
	PaymentID string
	Amount    int64
	// CheckoutID and MemberID are the service's, kept with the refund so that a notification
	// about it can be matched to the account.
	CheckoutID string
	MemberID   string
}

// RefundStatus is where a refund is at the provider.
type RefundStatus string

// The statuses of a refund. Only succeeded is money given back; pending and requires_action
// may still become either; failed and canceled never will.
const (
	RefundStatusPending        RefundStatus = "pending"
	RefundStatusRequiresAction RefundStatus = "requires_action"
	RefundStatusSucceeded      RefundStatus = "succeeded"
	RefundStatusFailed         RefundStatus = "failed"
	RefundStatusCanceled       RefundStatus = "canceled"
)

// Final reports whether a refund's status will not change any more.
func (s RefundStatus) Final() bool {
	return s == RefundStatusSucceeded || s == RefundStatusFailed || s == RefundStatusCanceled
}

// Refund is a refund as the provider has it.
type Refund struct {
	ID        string
	Amount    int64
	Status    RefundStatus
	PaymentID string
	// Key, CheckoutID and MemberID are what the service kept with it (RefundRequest).
	Key        string
	CheckoutID string
	MemberID   string
}

// RefundKeyAfter is the provider's idempotency key for the refund of what a checkout has due
// once refunded cents of it were given back already: RefundKey for its first refund, and for a
// later one (what was paid for a lost copy, given back when the copy came back after an excess
// was) the same key marked with the amount given back before. The amount changes only when a
// refund is recorded, so the key names one refund: asked for again after a crash, or found by
// FindRefund, until it is recorded, and never again after.
func RefundKeyAfter(checkoutID string, refunded int64) string {
	if refunded <= 0 {
		return RefundKey(checkoutID)
	}
	return RefundKey(checkoutID) + "-after-" + strconv.FormatInt(refunded, 10)
}

// RefundedBefore reads a refund key of checkoutID made by RefundKeyAfter back into the amount
// given back before it; ok is false for any other key.
func RefundedBefore(checkoutID, key string) (refunded int64, ok bool) {
	rest, ok := strings.CutPrefix(key, RefundKey(checkoutID))
	if !ok {
		return 0, false
	}
	if rest == "" {
		return 0, true
	}
	digits, ok := strings.CutPrefix(rest, "-after-")
	n, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || n <= 0 || strconv.FormatInt(n, 10) != digits {
		return 0, false
	}
	return n, true
}
