package wire

import (
	"maps"
	"slices"
	"time"
)

// The statuses of a session and of its payment, as Stripe names them.
const (
	StatusOpen     = "open"
	StatusComplete = "complete"
	StatusExpired  = "expired"
	Unpaid         = "unpaid"
	Paid           = "paid"
)

// The statuses of a session's payment intent, as Stripe names them: a card's payment succeeds
// at once; a slow method's (as SEPA debit) is processing until it succeeds or fails, and a
// failed one wants another payment method.
const (
	IntentProcessing            = "processing"
	IntentSucceeded             = "succeeded"
	IntentRequiresPaymentMethod = "requires_payment_method"
)

// The statuses of a refund, as Stripe names them: pending until it settles, then one of the
// others.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
	RefundCanceled  = "canceled"
)

// Session is a checkout session as devpay keeps it.
type Session struct {
	ID            string `json:"id"`
	URL           string `json:"url"`
	Status        string `json:"status"`
	PaymentStatus string `json:"payment_status"`
	PaymentIntent string `json:"payment_intent,omitempty"`
	// IntentStatus is the payment intent's status, once there is one.
	IntentStatus      string            `json:"payment_intent_status,omitempty"`
	AmountTotal       int64             `json:"amount_total"`
	Currency          string            `json:"currency"`
	LineItems         []LineItem        `json:"line_items"`
	ClientReferenceID string            `json:"client_reference_id,omitempty"`
	Metadata          map[string]string `json:"metadata"`
	// IntentMetadata is payment_intent_data[metadata]: the payment intent's, once paid.
	IntentMetadata map[string]string `json:"payment_intent_metadata"`
	SuccessURL     string            `json:"success_url"`
	CancelURL      string            `json:"cancel_url,omitempty"`
	CustomerEmail  string            `json:"customer_email,omitempty"`
	Created        time.Time         `json:"created"`
	ExpiresAt      time.Time         `json:"expires_at"`
	// Declines counts the payments declined on its page or by Decline.
	Declines int `json:"declines"`
	// Refunded is how much of its payment has been given back or is being given back: a
	// refund that failed or was canceled gives its amount back to what may be refunded.
	Refunded int64 `json:"refunded"`
	// IdempotencyKey is the key it was made with, if any.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// LineItem is one line of a session: what it is for, and its price.
type LineItem struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	UnitAmount  int64  `json:"unit_amount"`
	Quantity    int64  `json:"quantity"`
}

// Refund is money given back from a session's payment.
type Refund struct {
	ID             string            `json:"id"`
	Amount         int64             `json:"amount"`
	Currency       string            `json:"currency"`
	PaymentIntent  string            `json:"payment_intent"`
	SessionID      string            `json:"session"`
	Status         string            `json:"status"`
	Reason         string            `json:"reason,omitempty"`
	Metadata       map[string]string `json:"metadata"`
	Created        time.Time         `json:"created"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
}

// Clone is a copy that shares nothing with s.
func (s Session) Clone() Session {
	s.LineItems = slices.Clone(s.LineItems)
	s.Metadata = maps.Clone(s.Metadata)
	s.IntentMetadata = maps.Clone(s.IntentMetadata)
	return s
}

// Clone is a copy that shares nothing with r.
func (r Refund) Clone() Refund {
	r.Metadata = maps.Clone(r.Metadata)
	return r
}
