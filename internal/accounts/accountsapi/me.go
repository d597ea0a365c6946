package accountsapi

import (
	"context"
	"net/http"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/httpapi"
	"library/internal/validate"
)

// meView is GET /accounts/me: who the caller is to the service.
type meView struct {
	// MemberID is null when the token's member claim is not a member id.
	MemberID *string     `json:"memberId"`
	Roles    []auth.Role `json:"roles"`
	// Open is true while sign-in is off.
	Open    bool         `json:"open"`
	Account *accountView `json:"account"`
}

func (h Routes) me(w http.ResponseWriter, r *http.Request) error {
	caller := auth.AccessFrom(r.Context()).Caller
	view := meView{Roles: caller.Roles(), Open: caller.IsOpen()}
	if view.Roles == nil {
		view.Roles = []auth.Role{}
	}
	if id := caller.MemberID; id != "" {
		view.MemberID = &id
		if err := h.syncContact(r.Context(), caller, id); err != nil {
			return err
		}
		account, version, err := h.Service.Get(r.Context(), id)
		switch {
		case err == nil && !account.Erased:
			v := viewOf(id, account, version)
			view.Account = &v
		case err == nil:
		case !errs.Is(err, errs.NotFound):
			return err
		}
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

// syncContact records, on a signed-in member's own account, the email address their provider
// vouches for, when the account does not have it yet: the first time the account is used, and
// whenever the address at the provider changes. Nobody types an address that then gets mail.
// It does nothing for another member's account, or for a caller without a verified address.
func (h Routes) syncContact(ctx context.Context, c auth.Caller, memberID string) error {
	if !c.SignedIn() || c.MemberID == "" || c.MemberID != memberID || c.Email == "" {
		return nil
	}
	account, _, err := h.Service.Get(ctx, memberID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return err
	}
	if account.Erased || (account.Email == c.Email && account.EmailFrom == accounts.EmailFromProvider) {
		return nil // an erased account takes nothing more, not even the address of a sign-in
	}
	name := c.Name
	if validate.Text("name", name, accounts.MaxNameLength) != nil {
		name = memberID // the provider's name can't be a name here; the member can set one
	}
	origin := aggregate.Origin{CorrelationID: httpapi.RequestID(ctx),
		Actor: eventstore.Actor{Subject: c.Subject, Role: string(auth.Member), Issuer: c.Issuer}}
	cmd := accounts.SetContact{Name: name, Email: c.Email, EmailFrom: accounts.EmailFromProvider, KeepName: true}
	_, err = h.Service.SetContact(ctx, memberID, cmd, origin)
	return err
}
