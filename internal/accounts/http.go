package accounts

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/httpapi"
)

// Routes are the account endpoints of the HTTP API.
type Routes struct {
	Service *Service
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Put("/accounts/{memberId}", httpapi.Command("memberId", httpapi.KeyOptional, h.put))
	r.Get("/accounts/{memberId}", httpapi.Handle(h.get))
	r.Post("/accounts/{memberId}/fines", httpapi.Command("memberId", httpapi.KeyOptional, h.fine))
	r.Post("/accounts/{memberId}/payments", httpapi.Command("memberId", httpapi.KeyRequired, h.Service.Pay))
}

// accountView is an account as GET /accounts/{memberId} shows it. Name and email are null until
// the member has given them.
type accountView struct {
	MemberID string  `json:"memberId"`
	Name     *string `json:"name"`
	Email    *string `json:"email"`
	Balance  int64   `json:"balance"`
	Version  int64   `json:"version"`
}

func (h Routes) get(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	account, version, err := h.Service.Get(r.Context(), memberID)
	if err != nil {
		return err
	}
	view := accountView{MemberID: memberID, Balance: account.Balance, Version: version}
	if account.Opened {
		view.Name = &account.Name
	}
	if account.Email != "" {
		view.Email = &account.Email
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

// contactRequest is the body of PUT /accounts/{memberId}. Email may be left out, or null, for
// a member without one; an empty string is not an address and is refused.
type contactRequest struct {
	Name  string  `json:"name"`
	Email *string `json:"email"`
}

func (h Routes) put(ctx context.Context, memberID string, body contactRequest, o aggregate.Origin) (aggregate.Result, error) {
	cmd := SetContact{Name: body.Name}
	if body.Email != nil {
		if *body.Email == "" {
			return aggregate.Result{}, errs.E(errs.InvalidRequest, "email must be a plain email address such as alice@example.com, or null for none")
		}
		cmd.Email = *body.Email
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
	return h.Service.ChargeFine(ctx, memberID, ChargeFine{Amount: body.Amount, Reason: body.Reason}, o)
}
