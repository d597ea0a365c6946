package devidp

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// client is an op.Client: either the web app's public client or a user acting as a
// confidential client for the client_credentials grant.
type client struct {
	id            string
	redirects     []string
	postLogout    []string
	appType       op.ApplicationType
	authMethod    oidc.AuthMethod
	responseTypes []oidc.ResponseType
	grantTypes    []oidc.GrantType
	loginURL      string
	lifetime      time.Duration
}

func (c *client) GetID() string                        { return c.id }
func (c *client) RedirectURIs() []string               { return c.redirects }
func (c *client) PostLogoutRedirectURIs() []string     { return c.postLogout }
func (c *client) ApplicationType() op.ApplicationType  { return c.appType }
func (c *client) AuthMethod() oidc.AuthMethod          { return c.authMethod }
func (c *client) ResponseTypes() []oidc.ResponseType   { return c.responseTypes }
func (c *client) GrantTypes() []oidc.GrantType         { return c.grantTypes }
func (c *client) LoginURL(id string) string            { return c.loginURL + "?id=" + url.QueryEscape(id) }
func (c *client) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c *client) IDTokenLifetime() time.Duration       { return c.lifetime }
func (c *client) IsScopeAllowed(string) bool           { return false }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *client) ClockSkew() time.Duration             { return 0 }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string { //nolint:revive // op.Client names it so
	return func(scopes []string) []string { return scopes }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(scopes []string) []string { return scopes }
}

// DevMode lets the web client use http redirect URIs. op still requires each one to be in
// RedirectURIs, which webClient fills with the configured ones and the requested loopback one.
func (c *client) DevMode() bool { return c.appType == op.ApplicationTypeUserAgent }

// webClient returns the web app's client for the request in ctx: the configured redirect URIs,
// plus the redirect_uri and post_logout_redirect_uri the request asks for when they are http
// URIs on a loopback host (see withRequestedURIs).
func (p *Provider) webClient(ctx context.Context) *client {
	c := &client{
		id:            p.opts.WebClientID,
		redirects:     slices.Clone(p.opts.RedirectURIs),
		postLogout:    slices.Clone(p.opts.RedirectURIs),
		appType:       op.ApplicationTypeUserAgent,
		authMethod:    oidc.AuthMethodNone,
		responseTypes: []oidc.ResponseType{oidc.ResponseTypeCode},
		grantTypes:    []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken},
		loginURL:      p.loginURL(),
		lifetime:      p.opts.TokenLifetime,
	}
	if req, ok := ctx.Value(requestedKey{}).(requestedURIs); ok {
		if isLoopbackRedirect(req.redirect) {
			c.redirects = append(c.redirects, req.redirect)
		}
		if isLoopbackRedirect(req.postLogout) {
			c.postLogout = append(c.postLogout, req.postLogout)
		}
	}
	return c
}

// userClient returns u as a confidential client that may only use client_credentials.
func (p *Provider) userClient(u User) *client {
	return &client{
		id:         u.Username,
		appType:    op.ApplicationTypeWeb,
		authMethod: oidc.AuthMethodBasic,
		grantTypes: []oidc.GrantType{oidc.GrantTypeClientCredentials},
		loginURL:   p.loginURL(),
		lifetime:   p.opts.TokenLifetime,
	}
}

// requestedURIs are the redirect URIs an authorize or end_session request asks for.
type requestedURIs struct{ redirect, postLogout string }

type requestedKey struct{}

// withRequestedURIs puts the redirect URIs an authorize or end_session request asks for into
// its context, where webClient finds them: op checks a redirect URI against the client's list,
// and a list cannot hold every loopback port and path.
func (p *Provider) withRequestedURIs(next http.Handler) http.Handler {
	authorize, endSession := p.op.AuthorizationEndpoint().Relative(), p.op.EndSessionEndpoint().Relative()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == authorize || r.URL.Path == endSession {
			if err := r.ParseForm(); err == nil {
				req := requestedURIs{redirect: r.Form.Get("redirect_uri"), postLogout: r.Form.Get("post_logout_redirect_uri")}
				r = r.WithContext(context.WithValue(r.Context(), requestedKey{}, req))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackRedirect reports whether raw is an http URI on a loopback host (localhost,
// 127.0.0.0/8 or [::1]) at any port and path, with no user info and no fragment.
func isLoopbackRedirect(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Opaque != "" || u.Fragment != "" {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// allowedOrigin reports whether a browser page at origin may call the provider across
// origins: a loopback origin, or the origin of a configured redirect URI.
func (p *Provider) allowedOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if isLoopbackHost(u.Hostname()) {
		return true
	}
	for _, raw := range p.opts.RedirectURIs {
		if r, err := url.Parse(raw); err == nil && r.Scheme == u.Scheme && r.Host == u.Host {
			return true
		}
	}
	return false
}
