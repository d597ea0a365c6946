package payments

// NotificationType says what a notification is about.
type NotificationType string

// The notifications the service acts on; others are acknowledged and ignored.
const (
	// CheckoutCompleted: the member finished the page. The money may have arrived
	// (Session.Paid) or may come later (a slow payment method).
	CheckoutCompleted NotificationType = "checkout.session.completed"
	// CheckoutAsyncPaid: a slow payment of a completed session arrived.
	CheckoutAsyncPaid NotificationType = "checkout.session.async_payment_succeeded"
	// CheckoutAsyncFailed: a slow payment of a completed session failed.
	CheckoutAsyncFailed NotificationType = "checkout.session.async_payment_failed"
	// CheckoutExpired: the session ended unpaid.
	CheckoutExpired NotificationType = "checkout.session.expired"
	// RefundCreated, RefundUpdated and RefundFailed: a refund was made, or its status changed.
	RefundCreated NotificationType = "refund.created"
	RefundUpdated NotificationType = "refund.updated"
	RefundFailed  NotificationType = "refund.failed"
)

// IsCheckout reports whether a notification is about a checkout session.
func (t NotificationType) IsCheckout() bool {
	switch t {
	case CheckoutCompleted, CheckoutAsyncPaid, CheckoutAsyncFailed, CheckoutExpired:
		return true
	}
	return false
}

// IsRefund reports whether a notification is about a refund.
func (t NotificationType) IsRefund() bool {
	return t == RefundCreated || t == RefundUpdated || t == RefundFailed
}

// Notification is a verified webhook. It is only a hint: what it carries is what the
// provider's signature vouches for, and a signature is only as strong as its secret, so the
// service reads the object it names from the provider before recording anything.
type Notification struct {
	// ID is the provider's id of the notification; a redelivery carries the same.
	ID   string
	Type NotificationType
	// Session is the session it is about, for the checkout notifications.
	Session Session
	// RefundID is the refund it is about, for the refund notifications.
	RefundID string
}
