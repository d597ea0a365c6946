// Package payments is the service's port to a payment provider: what it asks of one (a hosted
// checkout for a member's fines, a refund) and what one tells it (signed webhooks), in the
// service's own words. It is plain Go, with no HTTP client or provider library: package
// payments/stripepay adapts Stripe's API to it, and package devpay is a provider for demos and
// tests that speaks the part of Stripe's API the adapter uses.
//
// # The provider's word, not the payload's
//
// A member's intent to pay carries their Idempotency-Key; the checkout's id is derived from it
// (CheckoutID), and the provider's idempotency key from the checkout (SessionKey), so that a
// retry or a double click makes one session at the provider and one charge. Money is recorded
// only from what the provider answers when asked (Session, GetRefund), never from what a
// notification carries: a webhook is a hint to ask. Its signature is checked all the same, so
// that nobody can make the service ask the provider at will, but a signature is only as strong
// as its secret, and a forged or replayed notification must record nothing the provider did not
// see. Money is recorded once per checkout, as a loan is lent once per loan id.
//
// # Money given back once, ever
//
// Money that arrives for nothing is given back under a key derived from the checkout
// (RefundKey). The provider keeps an idempotency key for a day only, so the key is also kept
// with the refund: FindRefund finds a refund made under it however long ago, and is asked
// before Refund, so that a crash between the provider's answer and its record, or a replay
// months later, gives back nothing twice. Only a refund that succeeded is money given back.
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
	// ExpireSession ends an open checkout session, so that it can't be paid any more, and
	// returns it as it is then. A session that is not open is returned as it is.
	ExpireSession(ctx context.Context, sessionID string) (Session, error)
	// Refund gives back part or all of a payment, or returns the refund made before under the
	// same RefundRequest.Key while the provider keeps that key.
	Refund(ctx context.Context, r RefundRequest) (Refund, error)
	// FindRefund looks among a payment's refunds for the one made under key (kept in the
	// refund's metadata, so that it is found however long ago it was made); ok is false when
	// there is none.
	FindRefund(ctx context.Context, paymentID, key string) (refund Refund, ok bool, err error)
	// GetRefund reads a refund as the provider sees it now.
	GetRefund(ctx context.Context, refundID string) (Refund, error)
	// Webhook reads a notification from its raw body and signature header, once the
	// signature is verified and made within the tolerance the adapter keeps, before or after
	// now. A bad, stale or future signature is errs.InvalidRequest.
	Webhook(payload []byte, signature string) (Notification, error)
}

// CheckoutID is the id of the checkout a member starts with an Idempotency-Key: the same key
// of the same member gives the same checkout, so a retry finds the first.
func CheckoutID(memberID, idempotencyKey string) string {
	sum := sha256.Sum256([]byte("checkout\x00" + memberID + "\x00" + idempotencyKey))
	return "co_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:15]))
}

// SessionKey is the provider's idempotency key for a checkout's session.
func SessionKey(checkoutID string) string { return "library-checkout-" + checkoutID }

// RefundKey is the provider's idempotency key for the refund of a checkout's excess: its first
// refund (RefundKeyAfter with nothing given back before).
func RefundKey(checkoutID string) string { return "library-refund-" + checkoutID }

// Tolerance is how far from now a webhook's signature may have been made, before or after:
// Stripe's own default, wide enough for clocks that disagree by a little.
const Tolerance = 5 * time.Minute
