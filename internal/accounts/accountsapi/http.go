package accountsapi

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// Routes are the account endpoints of the HTTP API. Who may call each is the rules table's to
// say (package auth); the handlers narrow what a member may do on their own account.
type Routes struct {
	Service *accounts.Service
	// Elsewhere is what other parts of the library keep about members.
	Elsewhere Elsewhere
	// Payments takes fines online; nil when the library takes none (PAYMENTS=off).
	Payments *Payments
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/accounts/me", httpapi.Handle(h.me))
	r.Put("/accounts/{memberId}", commandhttp.Command("memberId", commandhttp.KeyOptional, h.put))
	r.Get("/accounts/{memberId}", httpapi.Handle(h.get))
	r.Put("/accounts/{memberId}/card", commandhttp.Command("memberId", commandhttp.KeyOptional, h.putCard))
	r.Put("/accounts/{memberId}/group", commandhttp.Command("memberId", commandhttp.KeyOptional, h.putGroup))
	r.Put("/accounts/{memberId}/pin", commandhttp.Command("memberId", commandhttp.KeyOptional, h.putPIN))
	r.Get("/accounts/{memberId}/history", httpapi.Handle(h.history))
	r.Post("/accounts/{memberId}/fines", commandhttp.Command("memberId", commandhttp.KeyOptional, h.fine))
	r.Post("/accounts/{memberId}/payments", commandhttp.Command("memberId", commandhttp.KeyRequired, h.pay))
	r.Post("/accounts/{memberId}/erasure", httpapi.Handle(h.erase))
	r.Get("/accounts/{memberId}/export", httpapi.Handle(h.export))
	r.Post("/accounts/{memberId}/checkouts", httpapi.Handle(h.startCheckout))
	r.Get("/accounts/{memberId}/checkouts/{checkoutId}", httpapi.Handle(h.getCheckout))
	r.Post("/webhooks/stripe", httpapi.Handle(h.webhook))
}

// accountView is an account as GET /accounts/{memberId} shows it. Name and email are null until
// the member has given them, the card number while they have no library card. PINSet says
// whether they have a PIN for self-check, never what it is.
type accountView struct {
	MemberID   string  `json:"memberId"`
	Name       *string `json:"name"`
	Email      *string `json:"email"`
	EmailFrom  *string `json:"emailFrom"`
	Balance    int64   `json:"balance"`
	CardNumber *string `json:"cardNumber"`
	PINSet     bool    `json:"pinSet"`
	Version    int64   `json:"version"`
}

func viewOf(memberID string, account accounts.Account, version int64) accountView {
	view := accountView{MemberID: memberID, Balance: account.Balance, PINSet: account.PINSet(), Version: version}
	if account.Card != "" {
		view.CardNumber = &account.Card
	}
	if account.Opened {
		view.Name = &account.Name
	}
	if account.Email != "" {
		view.Email = &account.Email
	}
	if account.EmailFrom != "" {
		view.EmailFrom = &account.EmailFrom
	}
	return view
}

func (h Routes) get(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	if err := h.syncContact(r.Context(), auth.AccessFrom(r.Context()).Caller, memberID); err != nil {
		return err
	}
	account, version, err := h.Service.Get(r.Context(), memberID)
	if err != nil {
		return err
	}
	if account.Erased {
		return errs.E(errs.Gone, "this member's account was erased")
	}
	httpapi.WriteJSON(w, r, http.StatusOK, viewOf(memberID, account, version))
	return nil
}

// contactRequest is the body of PUT /accounts/{memberId}. Email may be left out, or null, for
// a member without one; an empty string is not an address and is refused.
type contactRequest struct {
	Name  string  `json:"name"`
	Email *string `json:"email"`
}

// put records a name and an address. A member names themself only: their address is the one
// their sign-in vouches for. Staff may set an address for a member who has never signed in.
func (h Routes) put(ctx context.Context, memberID string, body contactRequest, o aggregate.Origin) (aggregate.Result, error) {
	access := auth.AccessFrom(ctx)
	if body.Email != nil && *body.Email == "" {
		return aggregate.Result{}, errs.E(errs.InvalidRequest, "email must be a plain email address such as alice@example.com, or null for none")
	}
	cmd := accounts.SetContact{Name: body.Name}
	switch access.Role {
	case auth.Member:
		if body.Email != nil {
			return aggregate.Result{}, errs.E(errs.Forbidden, "a member's email address comes from their sign-in: send only the name")
		}
		cmd.KeepEmail = true
		if email := access.Caller.Email; email != "" {
			cmd.Email, cmd.EmailFrom, cmd.KeepEmail = email, accounts.EmailFromProvider, false
		}
	case auth.Open:
		if body.Email != nil {
			cmd.Email = *body.Email
		}
	default:
		cmd.ByStaff = true
		if body.Email != nil {
			cmd.Email, cmd.EmailFrom = *body.Email, accounts.EmailFromStaff
		}
	}
	return h.Service.SetContact(ctx, memberID, cmd, o)
}

// fineRequest is the body of POST /accounts/{memberId}/fines. LoanID is read only to be
// refused: a fine for a loan is the late-fines saga's, charged once per loan when the book
// comes back late, and a fine charged by hand under a loan's id would make the saga take the
// loan as fined already.
type fineRequest struct {
	Amount int64   `json:"amount"`
	Reason string  `json:"reason"`
	LoanID *string `json:"loanId"`
}

func (h Routes) fine(ctx context.Context, memberID string, body fineRequest, o aggregate.Origin) (aggregate.Result, error) {
	if body.LoanID != nil {
		return aggregate.Result{}, errs.E(errs.InvalidRequest,
			"loanId can't be given: a loan's late fine is charged by the library when the book comes back late; charge other fines without a loan")
	}
	return h.Service.ChargeFine(ctx, memberID, accounts.ChargeFine{Amount: body.Amount, Reason: body.Reason}, o)
}

// paymentRequest is the body of POST /accounts/{memberId}/payments.
type paymentRequest struct {
	Amount int64 `json:"amount"`
}

// pay takes a payment: a member paying for themself pays at most what they owe.
func (h Routes) pay(ctx context.Context, memberID string, body paymentRequest, o aggregate.Origin) (aggregate.Result, error) {
	access := auth.AccessFrom(ctx)
	if err := h.syncContact(ctx, access.Caller, memberID); err != nil {
		return aggregate.Result{}, err
	}
	return h.Service.Pay(ctx, memberID, accounts.Pay{Amount: body.Amount, AtMostOwed: access.Role == auth.Member}, o)
}
