package accountsapi

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"library/internal/accounts"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
	"library/internal/payments"
)

// Payments is what online payments need: the provider, the currency fines are in, and the
// web app's address, where the provider's page sends the member back.
type Payments struct {
	Provider payments.Provider
	// Currency is an ISO 4217 code, lower case, as the provider takes it ("eur").
	Currency string
	// PublicURL is the web app's address (PUBLIC_URL), without a trailing slash.
	PublicURL string
	// ExpiresAfter is how long a checkout's page takes payment (CHECKOUT_EXPIRES_AFTER).
	ExpiresAfter time.Duration
	// Now is the clock of the pages' expiry. Default time.Now.
	Now func() time.Time
}

func (p *Payments) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// checkoutView is a checkout as the API shows it. RefundDue is what is being given back
// (money that arrived when nothing was owed), Refunded what was given back.
type checkoutView struct {
	CheckoutID string `json:"checkoutId"`
	URL        string `json:"url,omitempty"`
	Amount     int64  `json:"amount"`
	Status     string `json:"status"`
	RefundDue  int64  `json:"refundDue,omitempty"`
	Refunded   int64  `json:"refunded,omitempty"`
	// ExpiresAt is when the page stops taking payment, while the checkout is open.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// checkoutRequest is the body of POST /accounts/{memberId}/checkouts.
type checkoutRequest struct {
	Amount int64 `json:"amount"`
}

// startCheckout answers POST /accounts/{memberId}/checkouts: a page at the provider for the
// member to pay at, made once per Idempotency-Key. The answer is made from the CheckoutStarted
// the command recorded, so that a retry, answered from the log, is the first answer again.
func (h Routes) startCheckout(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	if h.Payments == nil {
		return errs.E(errs.NotFound, "this library takes no payments online (PAYMENTS=off): pay at the desk")
	}
	origin, err := commandhttp.CommandOrigin(r)
	if err != nil {
		return err
	}
	if origin.CommandID == "" {
		return errs.E(errs.IdempotencyKeyMissing,
			"send an Idempotency-Key header, made once per click on Pay and kept across its retries, so that a retry cannot start a second payment")
	}
	var body checkoutRequest
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	// As a member's other requests do: their address comes from their sign-in.
	if err := h.syncContact(r.Context(), auth.AccessFrom(r.Context()).Caller, memberID); err != nil {
		return err
	}
	checkoutID := payments.CheckoutID(memberID, origin.CommandID)
	now := h.Payments.now()
	result, err := h.Service.StartCheckout(r.Context(), memberID, checkoutID, accounts.StartCheckout{Amount: body.Amount}, origin,
		now, h.openCheckout(memberID, checkoutID, now.Add(h.Payments.ExpiresAfter)))
	if err != nil {
		return err
	}
	for _, e := range result.Events {
		if started, ok := e.Data.(accounts.CheckoutStarted); ok {
			if result.Replayed {
				w.Header().Set(httpapi.ReplayedHeader, "true")
			}
			httpapi.WriteJSON(w, r, http.StatusCreated, checkoutView{CheckoutID: started.CheckoutID, URL: started.URL,
				Amount: started.Amount, Status: string(accounts.CheckoutOpen), ExpiresAt: started.ExpiresAt})
			return nil
		}
	}
	// Started before, under a key the account no longer remembers: as it is now.
	return h.writeCheckout(w, r, memberID, checkoutID)
}

// openCheckout asks the provider for the checkout's page, taking payment until expiresAt, under
// a key of the checkout's own.
func (h Routes) openCheckout(memberID, checkoutID string, expiresAt time.Time) func(context.Context, int64) (accounts.CheckoutStarted, error) {
	return func(ctx context.Context, amount int64) (accounts.CheckoutStarted, error) {
		back := h.Payments.PublicURL + "/#/checkouts/" + url.PathEscape(memberID) + "/" + checkoutID
		session, err := h.Payments.Provider.StartCheckout(ctx, payments.CheckoutRequest{
			Key: payments.SessionKey(checkoutID), CheckoutID: checkoutID, MemberID: memberID,
			Amount: amount, Currency: h.Payments.Currency, Description: "Library fines",
			SuccessURL: back, CancelURL: back + "?cancelled=1", ExpiresAt: expiresAt.Truncate(time.Second),
		})
		if err != nil {
			return accounts.CheckoutStarted{}, err
		}
		return accounts.CheckoutStarted{Currency: session.Currency, SessionID: session.ID, URL: session.URL,
			ExpiresAt: session.ExpiresAt.UTC()}, nil
	}
}

// getCheckout answers GET /accounts/{memberId}/checkouts/{checkoutId}.
func (h Routes) getCheckout(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	checkoutID, err := httpapi.PathID(r, "checkoutId")
	if err != nil {
		return err
	}
	return h.writeCheckout(w, r, memberID, checkoutID)
}

func (h Routes) writeCheckout(w http.ResponseWriter, r *http.Request, memberID, checkoutID string) error {
	account, _, err := h.Service.Get(r.Context(), memberID)
	if err != nil {
		return err
	}
	if account.Erased {
		return errs.E(errs.Gone, "this member's account was erased")
	}
	c, ok := account.Checkout(checkoutID)
	if !ok {
		return errs.E(errs.NotFound, "this account has no checkout %s", checkoutID)
	}
	view := checkoutView{CheckoutID: c.ID, Amount: c.Amount, Status: string(c.Status), RefundDue: c.RefundDue, Refunded: c.Refunded}
	if c.Status == accounts.CheckoutOpen {
		view.URL, view.ExpiresAt = c.URL, c.ExpiresAt
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}
