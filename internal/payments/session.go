package payments

import "time"

// CheckoutRequest asks for a hosted checkout page.
type CheckoutRequest struct {
	// Key makes the request idempotent at the provider: SessionKey of the checkout.
	Key        string
	CheckoutID string
	MemberID   string
	// Amount is in the currency's smallest unit (cents).
	Amount   int64
	Currency string
	// Description is what the page says the payment is for.
	Description string
	// SuccessURL and CancelURL are where the page sends the member back.
	SuccessURL string
	CancelURL  string
	// ExpiresAt is when the page stops taking payment, if it has not been paid by then.
	ExpiresAt time.Time
}

// SessionStatus is where a checkout session is at the provider.
type SessionStatus string

// The statuses of a session.
const (
	SessionOpen     SessionStatus = "open"
	SessionComplete SessionStatus = "complete"
	SessionExpired  SessionStatus = "expired"
)

// Session is a checkout session as the provider knows it.
type Session struct {
	ID  string
	URL string
	// CheckoutID and MemberID are the service's, as it gave them when the session was made.
	CheckoutID string
	MemberID   string
	Amount     int64
	Currency   string
	Status     SessionStatus
	// Paid is true once the money has arrived: a complete session whose payment succeeded.
	Paid bool
	// Failed is true when the payment of a complete session failed after the page (a slow
	// payment method that was refused): no money will come.
	Failed bool
	// PaymentID is the provider's id of the payment, once there is one: what a refund names.
	PaymentID string
	// ExpiresAt is when the page stops taking payment, if it is still open then.
	ExpiresAt time.Time
}
