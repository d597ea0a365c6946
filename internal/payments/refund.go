package payments

// RefundRequest asks to give back Amount of a payment.
type RefundRequest struct {
	// Key makes the request idempotent at the provider: RefundKey of the checkout. It is also
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
