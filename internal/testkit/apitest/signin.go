package apitest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"library/internal/app"
	"library/internal/devidp"
)

// Audience is the audience the test provider's access tokens carry and the service expects.
const Audience = "library"

// Users are the people the test provider signs in: two members (alice, bob), a librarian
// (libby) and an operator (oscar). Each password is the username followed by "-password".
func Users() []devidp.User {
	users := devidp.DefaultUsers()
	return append(users, devidp.User{ID: "bob", Username: "bob", Password: "bob-password", Name: "Bob Member",
		Email: "bob@example.org", EmailVerified: true, Roles: []string{}})
}

// Provider is a real OpenID Connect provider on loopback (package devidp), for tests of
// sign-in: discovery, keys, and tokens signed as any provider signs them.
type Provider struct {
	*devidp.Provider
	// Issuer is its URL: what the service's AUTH_ISSUER names.
	Issuer string
	server *httptest.Server
}

// StartProvider starts a Provider with Users on a free port until the test ends.
func StartProvider(t testing.TB) *Provider {
	t.Helper()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveProvider(t, ln)
}

// StartProviderAt starts a Provider with Users at issuer (http://127.0.0.1:port), for a test
// whose service was told of the provider before it was up.
func StartProviderAt(t testing.TB, issuer string) *Provider {
	t.Helper()
	u, err := url.Parse(issuer)
	require.NoError(t, err)
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", u.Host)
	require.NoError(t, err)
	return serveProvider(t, ln)
}

func serveProvider(t testing.TB, ln net.Listener) *Provider {
	t.Helper()
	issuer := "http://" + ln.Addr().String()
	p, err := devidp.New(devidp.Options{Issuer: issuer, Audience: Audience, Users: Users(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	server := &httptest.Server{Listener: ln, Config: &http.Server{Handler: p.Handler()}}
	server.Start()
	t.Cleanup(server.Close)
	return &Provider{Provider: p, Issuer: issuer, server: server}
}

// Token is a real access token for the user, as the provider's token endpoint gives it.
func (p *Provider) Token(t testing.TB, username string) string {
	t.Helper()
	token, err := p.Provider.Token(context.Background(), username)
	require.NoError(t, err)
	return token
}

// Bearer is the Authorization header value of a token for the user.
func (p *Provider) Bearer(t testing.TB, username string) string {
	t.Helper()
	return "Bearer " + p.Token(t, username)
}

// WebClientID is the web app's client id at the test provider (the service's AUTH_CLIENT_ID).
const WebClientID = "library-web"

// SignInAsTheWebApp signs the user in as the web app does: the authorization code flow with
// PKCE through the provider's own sign-in form, for the web app's client. It returns the access
// token and the ID token the provider gave.
func (p *Provider) SignInAsTheWebApp(t testing.TB, username string) (accessToken, idToken string) {
	t.Helper()
	ctx := context.Background()
	cfg := &oauth2.Config{
		ClientID:    WebClientID,
		Endpoint:    oauth2.Endpoint{AuthURL: p.Issuer + "/authorize", TokenURL: p.Issuer + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: "http://127.0.0.1:1/", // the web app's page; nothing need listen: the browser stops there
		Scopes:      []string{"openid", "profile", "email"},
	}
	verifier := oauth2.GenerateVerifier()
	browser := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Host != p.server.Listener.Addr().String() {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	form, err := browser.Get(cfg.AuthCodeURL("state", oauth2.S256ChallengeOption(verifier)))
	require.NoError(t, err)
	_ = form.Body.Close()
	require.Equal(t, http.StatusOK, form.StatusCode, "the provider's sign-in form")
	back, err := browser.PostForm(p.Issuer+"/login", url.Values{
		"id": {form.Request.URL.Query().Get("id")}, "username": {username}, "password": {username + "-password"},
	})
	require.NoError(t, err)
	_ = back.Body.Close()
	to, err := back.Location()
	require.NoError(t, err, "the provider sends the browser back to the web app")
	tok, err := cfg.Exchange(ctx, to.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	idToken, _ = tok.Extra("id_token").(string)
	require.NotEmpty(t, idToken, "the provider gave an ID token")
	return tok.AccessToken, idToken
}

// Stop stops the provider, as an outage would.
func (p *Provider) Stop() { p.server.Close() }

// WithSignIn is cfg with sign-in through p.
func WithSignIn(cfg app.Config, p *Provider) app.Config {
	cfg.AuthIssuer, cfg.AuthAudience, cfg.AuthClientID = p.Issuer, Audience, WebClientID
	cfg.AuthOff = false
	if cfg.Payments.Provider == "" {
		cfg.Payments.Provider = "off" // with sign-in on a database, it must be said
	}
	return cfg
}
