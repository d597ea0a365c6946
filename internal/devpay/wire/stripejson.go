// Package wire is Stripe's API as devpay speaks it: the objects it keeps (Session, Refund), their
// JSON as Stripe shows them (SessionObject, RefundObject, ListObject, EventPayload), Stripe's
// errors (Error), the form-encoded parameters of the calls devpay serves (ParseCheckout,
// ParseExpand, ParseRefund, ParseRefundList, ParseRefundRetrieve), with Stripe's checks and
// limits, and the pages of Stripe's lists (Page). It holds no state.
//
// It promises that what it writes decodes with stripe-go v84 into stripe.CheckoutSession,
// stripe.Refund, stripe.Event and stripe.Error, and a list into what stripe-go's list
// iterators read, and that a parameter it does not know is refused, never ignored: a client
// sending one finds out at once that devpay is not Stripe.
package wire

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/stripe/stripe-go/v84"
)

// The error types of Stripe's API that devpay answers with.
const (
	InvalidRequest   = "invalid_request_error"
	IdempotencyError = "idempotency_error"
	APIErrorType     = "api_error"
)

// Error is the body of a Stripe error: {"error": {...}}.
type Error struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
	Code    string `json:"code,omitempty"`
}

// Body is the error as Stripe writes it.
func (e Error) Body() []byte {
	b, _ := json.Marshal(struct {
		Error Error `json:"error"`
	}{e}) // a struct of strings always marshals
	return b
}

// WriteError writes an error with a status.
func WriteError(w http.ResponseWriter, status int, e Error) {
	WriteJSON(w, status, e.Body())
}

// WriteJSON writes a JSON body with a status, never to be cached.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// MustJSON marshals one of devpay's own values, which always marshal.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("devpay: " + err.Error()) // only devpay's own structs of strings, numbers and maps are marshalled
	}
	return b
}

// checkoutSession is a session as Stripe shows it: the fields stripe.CheckoutSession reads
// that devpay has, and null or empty for the others that a client might look at.
type checkoutSession struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	AmountSubtotal    int64             `json:"amount_subtotal"`
	AmountTotal       int64             `json:"amount_total"`
	CancelURL         *string           `json:"cancel_url"`
	ClientReferenceID *string           `json:"client_reference_id"`
	Created           int64             `json:"created"`
	Currency          string            `json:"currency"`
	Customer          *string           `json:"customer"`
	CustomerEmail     *string           `json:"customer_email"`
	ExpiresAt         int64             `json:"expires_at"`
	Livemode          bool              `json:"livemode"`
	Metadata          map[string]string `json:"metadata"`
	Mode              string            `json:"mode"`
	PaymentIntent     any               `json:"payment_intent"`
	PaymentStatus     string            `json:"payment_status"`
	Status            string            `json:"status"`
	SuccessURL        string            `json:"success_url"`
	UIMode            string            `json:"ui_mode"`
	URL               *string           `json:"url"`
}

// paymentIntent is the payment of a completed session, when a client expands payment_intent.
type paymentIntent struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Amount         int64             `json:"amount"`
	AmountReceived int64             `json:"amount_received"`
	Created        int64             `json:"created"`
	Currency       string            `json:"currency"`
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata"`
	Status         string            `json:"status"`
}

// refund is a refund as Stripe shows it.
type refund struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Amount        int64             `json:"amount"`
	Created       int64             `json:"created"`
	Currency      string            `json:"currency"`
	Metadata      map[string]string `json:"metadata"`
	PaymentIntent string            `json:"payment_intent"`
	Reason        *string           `json:"reason"`
	Status        string            `json:"status"`
}

// SessionObject is a session's JSON, with its payment intent expanded if asked. Stripe shows
// no url once a session is complete or expired.
func SessionObject(s *Session, expandIntent bool) []byte {
	o := checkoutSession{
		ID: s.ID, Object: "checkout.session", AmountSubtotal: s.AmountTotal, AmountTotal: s.AmountTotal,
		CancelURL: orNull(s.CancelURL), ClientReferenceID: orNull(s.ClientReferenceID), Created: s.Created.Unix(),
		Currency: s.Currency, CustomerEmail: orNull(s.CustomerEmail), ExpiresAt: s.ExpiresAt.Unix(),
		Metadata: orEmpty(s.Metadata), Mode: "payment", PaymentStatus: s.PaymentStatus, Status: s.Status,
		SuccessURL: s.SuccessURL, UIMode: "hosted",
	}
	if s.Status == StatusOpen {
		o.URL = &s.URL
	}
	switch {
	case s.PaymentIntent != "" && expandIntent:
		pi := paymentIntent{
			ID: s.PaymentIntent, Object: "payment_intent", Amount: s.AmountTotal, Created: s.Created.Unix(),
			Currency: s.Currency, Metadata: orEmpty(s.IntentMetadata), Status: s.IntentStatus,
		}
		if s.IntentStatus == IntentSucceeded {
			pi.AmountReceived = s.AmountTotal
		}
		o.PaymentIntent = pi
	case s.PaymentIntent != "":
		o.PaymentIntent = s.PaymentIntent
	}
	return MustJSON(o)
}

// RefundObject is a refund's JSON.
func RefundObject(r *Refund) []byte {
	return MustJSON(refund{
		ID: r.ID, Object: "refund", Amount: r.Amount, Created: r.Created.Unix(), Currency: r.Currency,
		Metadata: orEmpty(r.Metadata), PaymentIntent: r.PaymentIntent, Reason: orNull(r.Reason), Status: r.Status,
	})
}

// EventRequest is the API request that made an event: none for what a person did on the page.
type EventRequest struct {
	ID             *string `json:"id"`
	IdempotencyKey *string `json:"idempotency_key"`
}

type eventJSON struct {
	ID              string       `json:"id"`
	Object          string       `json:"object"`
	APIVersion      string       `json:"api_version"`
	Created         int64        `json:"created"`
	Data            eventData    `json:"data"`
	Livemode        bool         `json:"livemode"`
	PendingWebhooks int          `json:"pending_webhooks"`
	Request         EventRequest `json:"request"`
	Type            string       `json:"type"`
}

type eventData struct {
	Object json.RawMessage `json:"object"`
}

// EventPayload is an event's JSON, as a webhook sends it: its object, how many URLs it goes
// to, and the request that made it.
func EventPayload(id, typ string, created int64, object []byte, endpoints int, req EventRequest) []byte {
	return MustJSON(eventJSON{
		ID: id, Object: "event", APIVersion: stripe.APIVersion, Created: created,
		Data: eventData{Object: object}, PendingWebhooks: endpoints, Request: req, Type: typ,
	})
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// RequestOf is the request of an event an API call made: its request id and idempotency key.
func RequestOf(requestID, idempotencyKey string) EventRequest {
	return EventRequest{ID: orNull(requestID), IdempotencyKey: orNull(strings.TrimSpace(idempotencyKey))}
}
