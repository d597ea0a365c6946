// Package payments is the service's port to a payment provider: what it asks of one (a hosted
// checkout for a member's fines, a refund) and what one tells it (signed webhooks), in the
// service's own words. It is plain Go, with no HTTP client or provider library: package
// payments/stripepay adapts Stripe's API to it, and package devpay is a provider for demos and
// tests that speaks the part of Stripe's API the adapter uses.
//
// # Money is recorded once
//
// A member's intent to pay carries their Idempotency-Key; the checkout's id is derived from it
// (CheckoutID), and the provider's idempotency key from the checkout (SessionKey), so that a
// retry or a double click makes one session at the provider and one charge. Money is recorded
// only from what the provider says (a signed webhook, or reconciliation asking it), once per
// checkout, as a loan is lent once per loan id. Money that arrives for nothing is given back
// once, under a key derived from the checkout (RefundKey).
package payments

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"strings"
	"time"
)

// Provider is a payment provider. Its errors are the service's own (package errs): the
// provider unreachable or failing is errs.Unavailable; a request it refuses for its content is
// errs.InvalidRequest, or errs.Internal when the service should not have sent it.
type Provider interface {
	// StartCheckout makes a hosted checkout page for a payment, or returns the one made
	// before under the same CheckoutRequest.Key.
	StartCheckout(ctx context.Context, r CheckoutRequest) (Session, error)
	// Session reads a checkout session as the provider sees it now.
	Session(ctx context.Context, sessionID string) (Session, error)
	// Refund gives back part or all of a payment, or returns the refund made before under the
	// same RefundRequest.Key.
	Refund(ctx context.Context, r RefundRequest) (Refund, error)
	// Webhook reads a notification from its raw body and signature header, once the
	// signature is verified and no older than the tolerance the adapter keeps. A bad or stale
	// signature is errs.InvalidRequest.
	Webhook(payload []byte, signature string) (Notification, error)
}

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
	// PaymentID is the provider's id of the payment, once there is one: what a refund names.
	PaymentID string
}

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
)

// Notification is a verified webhook.
type Notification struct {
	// ID is the provider's id of the notification; a redelivery carries the same.
	ID   string
	Type NotificationType
	// Session is the session it is about, for the checkout notifications.
	Session Session
}

// RefundRequest asks to give back Amount of a payment.
type RefundRequest struct {
	// Key makes the request idempotent at the provider: RefundKey of the checkout.
	Key       string
	PaymentID string
	Amount    int64
}

// Refund is a refund as the provider made it.
type Refund struct {
	ID     string
	Amount int64
	// Status is the provider's: pending, succeeded, failed...
	Status string
}

// CheckoutID is the id of the checkout a member starts with an Idempotency-Key: the same key
// of the same member gives the same checkout, so a retry finds the first.
func CheckoutID(memberID, idempotencyKey string) string {
	sum := sha256.Sum256([]byte("checkout\x00" + memberID + "\x00" + idempotencyKey))
	return "co_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:15]))
}

// SessionKey is the provider's idempotency key for a checkout's session.
func SessionKey(checkoutID string) string { return "library-checkout-" + checkoutID }

// RefundKey is the provider's idempotency key for the refund of a checkout's excess.
func RefundKey(checkoutID string) string { return "library-refund-" + checkoutID }

// Tolerance is how old a webhook's signature may be.
const Tolerance = 5 * time.Minute
