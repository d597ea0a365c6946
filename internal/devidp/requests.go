package devidp

import (
	"slices"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// authRequest is an op.AuthRequest: an authorize request, waiting for a sign-in or signed in.
type authRequest struct {
	id           string
	created      time.Time
	clientID     string
	redirectURI  string
	state        string
	nonce        string
	scopes       []string
	responseType oidc.ResponseType
	responseMode oidc.ResponseMode
	challenge    *oidc.CodeChallenge
	audience     []string

	subject  string
	authTime time.Time
	done     bool
}

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAudience() []string                 { return slices.Clone(a.audience) }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.challenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.responseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.responseMode }
func (a *authRequest) GetScopes() []string                   { return slices.Clone(a.scopes) }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

// GetAMR says the person signed in with a password.
func (a *authRequest) GetAMR() []string {
	if a.done {
		return []string{"pwd"}
	}
	return nil
}

// ccRequest is the op.TokenRequest of the client_credentials grant: a user acting as a client.
type ccRequest struct {
	subject  string
	clientID string
	audience []string
	scopes   []string
}

func (c *ccRequest) GetSubject() string    { return c.subject }
func (c *ccRequest) GetAudience() []string { return slices.Clone(c.audience) }
func (c *ccRequest) GetScopes() []string   { return slices.Clone(c.scopes) }
func (c *ccRequest) GetClientID() string   { return c.clientID }

// refreshToken is a stored refresh token and, as an op.RefreshTokenRequest, what a refresh
// asks for: the sign-in it continues.
type refreshToken struct {
	token    string
	subject  string
	clientID string
	audience []string
	scopes   []string
	amr      []string
	authTime time.Time
	expiry   time.Time
}

func (r *refreshToken) GetAMR() []string                 { return slices.Clone(r.amr) }
func (r *refreshToken) GetAudience() []string            { return slices.Clone(r.audience) }
func (r *refreshToken) GetAuthTime() time.Time           { return r.authTime }
func (r *refreshToken) GetClientID() string              { return r.clientID }
func (r *refreshToken) GetScopes() []string              { return slices.Clone(r.scopes) }
func (r *refreshToken) GetSubject() string               { return r.subject }
func (r *refreshToken) SetCurrentScopes(scopes []string) { r.scopes = slices.Clone(scopes) }

// accessToken is what is kept of an issued access token, so userinfo, introspection and
// revocation know it.
type accessToken struct {
	subject  string
	clientID string
	expiry   time.Time
}

// clientIDOf returns the client a token request is for.
func clientIDOf(req any) string {
	if c, ok := req.(interface{ GetClientID() string }); ok {
		return c.GetClientID()
	}
	return ""
}
