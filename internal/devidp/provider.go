package devidp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"library/internal/devidp/keyring"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rs/cors"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Options configure a Provider. Only Issuer is required.
type Options struct {
	// Issuer is the provider's URL as clients see it, such as http://127.0.0.1:9096: the iss
	// of its tokens, and where discovery is found. http is allowed (op's insecure mode).
	Issuer string
	// Audience is the aud of access tokens, which the service checks. Default "library".
	Audience string
	// Users may sign in, and use the client_credentials grant. Default DefaultUsers().
	Users []User
	// WebClientID is the id of the web app's public client. Default "library-web".
	WebClientID string
	// RedirectURIs are allowed as redirect and post-logout redirect URIs of the web client,
	// besides any http URI on a loopback host. Their origins may also call across origins.
	RedirectURIs []string
	// ShowUsers lists every user on the sign-in page, with their password and role, under a
	// note that this is a demo provider: for users whose passwords are no secret, such as
	// DefaultUsers, whose are in the project's README.
	ShowUsers bool
	// TokenLifetime is how long access and ID tokens last. Default one hour.
	TokenLifetime time.Duration
	// Now is the clock for expiries (exp, and how long codes and sign-ins wait). Default
	// time.Now. op itself stamps iat and nbf with the wall clock.
	Now func() time.Time
	// Logger receives sign-ins and refusals, never a password or a token. Default
	// slog.Default(). (op logs its own request errors to slog.Default().)
	Logger *slog.Logger
}

// Provider is a running OpenID Connect provider. Its methods are safe for concurrent use.
type Provider struct {
	opts   Options
	issuer *url.URL
	users  directory
	keys   *keyring.Keyring
	store  *storage
	op     *op.Provider
	log    *slog.Logger
}

// New makes a Provider, with a new RSA signing key.
func New(opts Options) (*Provider, error) {
	opts = withDefaults(opts)
	issuer, err := parseIssuer(opts.Issuer)
	if err != nil {
		return nil, err
	}
	if err := validateUsers(opts.Users, opts.WebClientID); err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	keys, err := keyring.New()
	if err != nil {
		return nil, err
	}
	p := &Provider{opts: opts, issuer: issuer, users: newDirectory(opts.Users), keys: keys, log: opts.Logger}
	p.store = newStorage(p)
	p.op, err = op.NewProvider(p.opConfig(), p.store, op.StaticIssuer(opts.Issuer), p.opOptions()...)
	if err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	return p, nil
}

func withDefaults(opts Options) Options {
	opts.Issuer = strings.TrimSuffix(opts.Issuer, "/")
	if opts.Audience == "" {
		opts.Audience = "library"
	}
	if opts.Users == nil {
		opts.Users = DefaultUsers()
	}
	if opts.WebClientID == "" {
		opts.WebClientID = "library-web"
	}
	opts.RedirectURIs = slices.Clone(opts.RedirectURIs)
	if opts.TokenLifetime <= 0 {
		opts.TokenLifetime = time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return opts
}

func parseIssuer(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("devidp: issuer %q is not an http or https URL without query or fragment", raw)
	}
	return u, nil
}

func (p *Provider) opConfig() *op.Config {
	c := &op.Config{
		DefaultLogoutRedirectURI: p.opts.Issuer + loggedOutPath,
		CodeMethodS256:           true,
		GrantTypeRefreshToken:    true,
		SupportedClaims:          append(slices.Clone(op.DefaultSupportedClaims), "roles"),
	}
	_, _ = rand.Read(c.CryptoKey[:]) // the key that encrypts authorization codes; crypto/rand never fails
	return c
}

func (p *Provider) opOptions() []op.Option {
	opts := []op.Option{op.WithCORSOptions(&cors.Options{
		AllowOriginFunc:  p.allowedOrigin,
		AllowCredentials: true,
		AllowedMethods:   []string{http.MethodGet, http.MethodHead, http.MethodPost},
		AllowedHeaders:   []string{"Origin", "Accept", "Accept-Language", "Authorization", "Content-Type", "X-Requested-With"},
		ExposedHeaders:   []string{"Location", "Content-Length"},
	}), op.WithHttpInterceptors(p.ownTokenGrants)}
	if p.issuer.Scheme == "http" {
		opts = append(opts, op.WithAllowInsecure())
	}
	return opts
}

func (p *Provider) now() time.Time { return p.opts.Now() }

func (p *Provider) loginURL() string { return p.opts.Issuer + loginPath }

// Handler serves everything: op's discovery, keys, authorize, token, userinfo, revocation,
// introspection and end_session endpoints, and the sign-in page. It expects requests at the
// issuer's path: with an issuer such as http://host/idp it strips /idp itself.
func (p *Provider) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+loginPath, p.showLogin)
	mux.HandleFunc("POST "+loginPath, p.submitLogin)
	mux.HandleFunc("GET "+loginCSSPath, serveCSS)
	mux.HandleFunc("GET "+loggedOutPath, p.showLoggedOut)
	mux.Handle("/", p.withRequestedURIs(p.op))
	if prefix := strings.TrimSuffix(p.issuer.Path, "/"); prefix != "" {
		return http.StripPrefix(prefix, mux)
	}
	return mux
}

// Token issues a real access token for the user with this username, exactly as the
// client_credentials grant does once the user's password is checked (which Token skips). It
// is a hook for tests.
func (p *Provider) Token(ctx context.Context, username string) (string, error) {
	u, ok := p.users.byUsername[username]
	if !ok {
		return "", fmt.Errorf("devidp: no user %q", username)
	}
	req, err := p.store.ClientCredentialsTokenRequest(ctx, username, nil)
	if err != nil {
		return "", fmt.Errorf("devidp: token for %q: %w", username, err)
	}
	ctx = op.ContextWithIssuer(ctx, p.opts.Issuer)
	resp, err := op.CreateClientCredentialsTokenResponse(ctx, req, p.op, p.userClient(u))
	if err != nil {
		return "", fmt.Errorf("devidp: token for %q: %w", username, err)
	}
	if resp.AccessToken == "" {
		return "", errors.New("devidp: op issued an empty access token")
	}
	return resp.AccessToken, nil
}
