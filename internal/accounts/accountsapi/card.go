package accountsapi

import (
	"context"

	"library/internal/accounts"
	"library/internal/aggregate"
)

// cardRequest is the body of PUT /accounts/{memberId}/card.
type cardRequest struct {
	CardNumber string `json:"cardNumber"`
}

// putCard gives the member a library card, or moves them to another (librarians: the rules
// table says who).
func (h Routes) putCard(ctx context.Context, memberID string, body cardRequest, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.AssignCard(ctx, memberID, accounts.AssignCard(body), o)
}

// pinRequest is the body of PUT /accounts/{memberId}/pin. The PIN goes no further than the
// service, which keeps its hash only.
type pinRequest struct {
	PIN string `json:"pin"`
}

// putPIN sets the member's PIN for self-check (the member themself: the rules table says who).
// The answer holds no hash.
func (h Routes) putPIN(ctx context.Context, memberID string, body pinRequest, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.SetPIN(ctx, memberID, accounts.SetPIN{PIN: body.PIN}, o)
}

// groupRequest is the body of PUT /accounts/{memberId}/group.
type groupRequest struct {
	Group string `json:"group"`
}

// putGroup puts the member in a patron group, which the circulation rules are keyed by
// (librarians: the rules table says who).
func (h Routes) putGroup(ctx context.Context, memberID string, body groupRequest, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.SetGroup(ctx, memberID, accounts.SetGroup(body), o)
}
