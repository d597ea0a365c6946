package devidp

import (
	"context"
	"net/http"
	"time"

	httphelper "github.com/zitadel/oidc/v3/pkg/http"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// op gives an access token and the ID token issued with it one audience, the request's: the
// service's would then be in the web app's ID tokens, and the service would take an ID token
// for an access token. So this provider answers the token endpoint's authorization_code and
// refresh_token grants itself, with op's own checks, and issues the ID token for the client
// alone (aud = its id), the access token for the service alone (aud = Options.Audience). The
// other grants are op's.

// ownTokenGrants is an op interceptor: it answers the two grants that issue ID tokens, and hands
// every other request on.
func (p *Provider) ownTokenGrants(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != p.op.TokenEndpoint().Relative() {
			next.ServeHTTP(w, r)
			return
		}
		switch r.FormValue("grant_type") {
		case string(oidc.GrantTypeCode):
			p.exchangeCode(w, r)
		case string(oidc.GrantTypeRefreshToken):
			p.exchangeRefreshToken(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// exchangeCode is op.CodeExchange but for the tokens it issues.
func (p *Provider) exchangeCode(w http.ResponseWriter, r *http.Request) {
	req, err := op.ParseAccessTokenRequest(r, p.op.Decoder())
	if err == nil && req.Code == "" {
		err = oidc.ErrInvalidRequest().WithDescription("code missing")
	}
	var authReq op.AuthRequest
	var client op.Client
	if err == nil {
		authReq, client, err = op.ValidateAccessTokenRequest(r.Context(), req, p.op)
	}
	var resp *oidc.AccessTokenResponse
	if err == nil {
		resp, err = p.tokenResponse(r.Context(), authReq, webAuthRequest{authReq}, client, req.Code, "")
	}
	if err == nil {
		err = p.store.DeleteAuthRequest(r.Context(), authReq.GetID())
	}
	p.answer(w, r, resp, err)
}

// exchangeRefreshToken is op.RefreshTokenExchange but for the tokens it issues.
func (p *Provider) exchangeRefreshToken(w http.ResponseWriter, r *http.Request) {
	req, err := op.ParseRefreshTokenRequest(r, p.op.Decoder())
	var refresh op.RefreshTokenRequest
	var client op.Client
	if err == nil {
		refresh, client, err = op.ValidateRefreshTokenRequest(r.Context(), req, p.op)
	}
	var resp *oidc.AccessTokenResponse
	if err == nil {
		resp, err = p.tokenResponse(r.Context(), refresh, webRefreshRequest{refresh}, client, "", req.RefreshToken)
	}
	p.answer(w, r, resp, err)
}

func (p *Provider) answer(w http.ResponseWriter, r *http.Request, resp *oidc.AccessTokenResponse, err error) {
	if err != nil {
		op.RequestError(w, r, err, p.log)
		return
	}
	httphelper.MarshalJSON(w, resp)
}

// tokenResponse issues an access token for access (whose audience is the service's) and an ID
// token for id (whose audience is the client's), as op.CreateTokenResponse does for one request.
func (p *Provider) tokenResponse(ctx context.Context, access op.TokenRequest, id op.IDTokenRequest, client op.Client, code, refreshToken string) (*oidc.AccessTokenResponse, error) {
	accessToken, newRefreshToken, validity, err := op.CreateAccessToken(ctx, access, client.AccessTokenType(), p.op, client, refreshToken)
	if err != nil {
		return nil, err
	}
	idToken, err := op.CreateIDToken(ctx, op.IssuerFromContext(ctx), id, client.IDTokenLifetime(), accessToken, code, p.store, client)
	if err != nil {
		return nil, err
	}
	return &oidc.AccessTokenResponse{
		AccessToken:  accessToken,
		IDToken:      idToken,
		RefreshToken: newRefreshToken,
		TokenType:    oidc.BearerToken,
		ExpiresIn:    uint64(max(validity, 0) / time.Second),
		Scope:        access.GetScopes(),
	}, nil
}

// webAuthRequest is a signed-in auth request as its ID token sees it: for the client alone.
type webAuthRequest struct{ op.AuthRequest }

func (r webAuthRequest) GetAudience() []string { return []string{r.GetClientID()} }

// webRefreshRequest is a refresh as its ID token sees it: for the client alone.
type webRefreshRequest struct{ op.RefreshTokenRequest }

func (r webRefreshRequest) GetAudience() []string { return []string{r.GetClientID()} }
