package accountsapi

import (
	"io"
	"net/http"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/httpapi"
	"library/internal/payments"
	"library/internal/validate"
)

// providerActor is who the log says recorded what the payment provider told.
var providerActor = eventstore.Actor{Subject: "payment-provider", Role: string(auth.System)}

// webhook answers POST /webhooks/stripe: a notification from the payment provider, verified
// against its raw body, recorded on the member's account before it is acknowledged. The
// provider delivers at least once, late or out of order, and from any replica's point of view
// concurrently: a checkout is paid once (SettleCheckout), however often it is told. A refusal
// (a session that is not the account's, another amount) records nothing and is answered 400,
// which the provider shows and retries; a notification the service has no use for is
// acknowledged.
func (h Routes) webhook(w http.ResponseWriter, r *http.Request) error {
	if h.Payments == nil {
		return errs.E(errs.NotFound, "this library takes no payments online (PAYMENTS=off)")
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return errs.Wrap(errs.InvalidRequest, err, "the request body could not be read")
	}
	n, err := h.Payments.Provider.Webhook(body, r.Header.Get("Stripe-Signature"))
	if err != nil {
		return err
	}
	settle, ok := settlement(n)
	if !ok {
		httpapi.WriteJSON(w, r, http.StatusOK, webhookAnswer{Received: true})
		return nil
	}
	memberID := n.Session.MemberID
	if err := validate.MemberID("the session's member", memberID); err != nil {
		return err
	}
	origin := aggregate.Origin{CorrelationID: httpapi.RequestID(r.Context()), Actor: providerActor}
	if _, err := h.Service.SettleCheckout(r.Context(), memberID, settle, origin); err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, webhookAnswer{Received: true})
	return nil
}

// webhookAnswer acknowledges a notification.
type webhookAnswer struct {
	Received bool `json:"received"`
}

// settlement is what a notification asks the account to record, ok false for none.
func settlement(n payments.Notification) (accounts.SettleCheckout, bool) {
	s := n.Session
	settle := accounts.SettleCheckout{CheckoutID: s.CheckoutID, SessionID: s.ID}
	switch {
	case (n.Type == payments.CheckoutCompleted || n.Type == payments.CheckoutAsyncPaid) && s.Paid:
		settle.Status, settle.Amount, settle.Currency, settle.PaymentID = accounts.CheckoutPaid, s.Amount, s.Currency, s.PaymentID
	case n.Type == payments.CheckoutAsyncFailed:
		settle.Status = accounts.CheckoutFailed
	case n.Type == payments.CheckoutExpired:
		settle.Status = accounts.CheckoutExpired
	default:
		return accounts.SettleCheckout{}, false // completed, the money still to come; or not a checkout's
	}
	return settle, true
}
