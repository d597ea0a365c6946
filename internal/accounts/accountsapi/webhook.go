package accountsapi

import (
	"io"
	"net/http"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/checkouts"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/httpapi"
)

// providerActor is who the log says recorded what the payment provider told.
var providerActor = eventstore.Actor{Subject: "payment-provider", Role: string(auth.System)}

// webhook answers POST /webhooks/stripe: a notification from the payment provider, verified
// against its raw body, and then taken only as a hint: the session or refund it names is read
// from the provider, and what the provider says now is recorded on the member's account before
// the notification is acknowledged (package checkouts, Confirm). A forged or replayed
// notification therefore records nothing the provider did not see. The provider delivers at
// least once, late or out of order, and from any replica's point of view concurrently: a
// checkout is paid once, a refund recorded once, however often they are told. The provider
// unreachable is answered 503, so that it delivers again later; a refusal (a session that is
// not the account's, another amount) records nothing and is answered 400, which the provider
// shows and retries; a notification the service has no use for is acknowledged.
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
	confirm := checkouts.Confirm{Accounts: h.Service, Provider: h.Payments.Provider}
	origin := aggregate.Origin{CorrelationID: httpapi.RequestID(r.Context()), Actor: providerActor}
	switch {
	case n.Type.IsCheckout():
		err = confirm.Checkout(r.Context(), n.Session.ID, origin)
	case n.Type.IsRefund():
		err = confirm.Refund(r.Context(), n.RefundID, origin)
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, webhookAnswer{Received: true})
	return nil
}

// webhookAnswer acknowledges a notification.
type webhookAnswer struct {
	Received bool `json:"received"`
}
