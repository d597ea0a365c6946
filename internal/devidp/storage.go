package devidp

import (
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

const (
	// authRequestTTL is how long a person has to sign in once the web app sent them here.
	authRequestTTL = 30 * time.Minute
	// codeTTL is how long an authorization code may wait to be exchanged.
	codeTTL = 2 * time.Minute
	// refreshTTL is how long a refresh token lasts; each use replaces it with a new one.
	refreshTTL = 24 * time.Hour
)

var (
	errNotFound  = errors.New("not found or expired")
	errBadClient = errors.New("unknown client or wrong secret")
	errNoJWTAuth = errors.New("client keys for JWT profile authentication are not supported")
)

// errPKCENeeded is new on each call: op sets the state of the request on the error it sends.
func errPKCENeeded() error {
	return oidc.ErrInvalidRequest().WithDescription("this client must use PKCE with code_challenge_method S256")
}

// storage is the op.Storage, kept in memory. Everything it hands to op is a copy, so op never
// reads a value another request is changing.
type storage struct {
	p *Provider

	mu            sync.Mutex
	authRequests  map[string]authRequest
	codes         map[string]authCode
	accessTokens  map[string]accessToken
	refreshTokens map[string]refreshToken
}

// authCode is an issued authorization code: the auth request it stands for, and when.
type authCode struct {
	requestID string
	issued    time.Time
}

func newStorage(p *Provider) *storage {
	return &storage{
		p:             p,
		authRequests:  map[string]authRequest{},
		codes:         map[string]authCode{},
		accessTokens:  map[string]accessToken{},
		refreshTokens: map[string]refreshToken{},
	}
}

// randomID returns an unguessable id (128 random bits).
func randomID() string { return rand.Text() }

// CreateAuthRequest stores a validated authorize request. The web client must use PKCE S256,
// and prompt=none cannot succeed since this provider keeps no sign-in session.
func (s *storage) CreateAuthRequest(_ context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if slices.Contains(req.Prompt, oidc.PromptNone) {
		return nil, oidc.ErrLoginRequired()
	}
	if req.ClientID == s.p.opts.WebClientID &&
		(req.CodeChallenge == "" || req.CodeChallengeMethod != oidc.CodeChallengeMethodS256) {
		return nil, errPKCENeeded()
	}
	a := authRequest{
		id: randomID(), created: s.p.now(), clientID: req.ClientID, redirectURI: req.RedirectURI,
		state: req.State, nonce: req.Nonce, scopes: slices.Clone(req.Scopes),
		responseType: req.ResponseType, responseMode: req.ResponseMode,
		audience: []string{s.p.opts.Audience}, // the access token's; its ID token's is the client's (exchange.go)
	}
	if req.CodeChallenge != "" {
		a.challenge = &oidc.CodeChallenge{Challenge: req.CodeChallenge, Method: req.CodeChallengeMethod}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked()
	s.authRequests[a.id] = a
	return &a, nil
}

// AuthRequestByID returns a copy of the auth request with this id.
func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.authRequests[id]
	if !ok || s.p.now().After(a.created.Add(authRequestTTL)) {
		return nil, errNotFound
	}
	return &a, nil
}

// AuthRequestByCode returns the auth request a code stands for. A code works once: it is
// removed here, so a second exchange (or a second try at its PKCE verifier) fails.
func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	c, ok := s.codes[code]
	delete(s.codes, code)
	s.mu.Unlock()
	if !ok || s.p.now().After(c.issued.Add(codeTTL)) {
		return nil, errNotFound
	}
	return s.AuthRequestByID(ctx, c.requestID)
}

// SaveAuthCode records the code op made for a signed-in auth request.
func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = authCode{requestID: id, issued: s.p.now()}
	return nil
}

// DeleteAuthRequest forgets an auth request and its code, once its tokens are issued.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.authRequests, id)
	for code, c := range s.codes {
		if c.requestID == id {
			delete(s.codes, code)
		}
	}
	return nil
}

// completeLogin marks the auth request as signed in by user.
func (s *storage) completeLogin(id string, u User) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.authRequests[id]
	if !ok || s.p.now().After(a.created.Add(authRequestTTL)) {
		return errNotFound
	}
	a.subject, a.authTime, a.done = u.ID, s.p.now(), true
	s.authRequests[id] = a
	return nil
}

// pruneLocked forgets what has expired, so a long demo does not grow without end.
func (s *storage) pruneLocked() {
	now := s.p.now()
	for id, a := range s.authRequests {
		if now.After(a.created.Add(authRequestTTL)) {
			delete(s.authRequests, id)
		}
	}
	for code, c := range s.codes {
		if now.After(c.issued.Add(codeTTL)) {
			delete(s.codes, code)
		}
	}
	for id, t := range s.accessTokens {
		if now.After(t.expiry) {
			delete(s.accessTokens, id)
		}
	}
	for token, r := range s.refreshTokens {
		if now.After(r.expiry) {
			delete(s.refreshTokens, token)
		}
	}
}

// GetClientByClientID returns the web client, or a user as a client.
func (s *storage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	if id == s.p.opts.WebClientID {
		return s.p.webClient(ctx), nil
	}
	if u, ok := s.p.users.byUsername[id]; ok {
		return s.p.userClient(u), nil
	}
	return nil, errBadClient
}

// AuthorizeClientIDSecret checks a user's password as a client secret.
func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	if _, err := s.p.users.authenticate(id, secret); err != nil {
		return errBadClient
	}
	return nil
}

// ClientCredentials authenticates a user as a client for the client_credentials grant.
func (s *storage) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	u, err := s.p.users.authenticate(id, secret)
	if err != nil {
		return nil, errBadClient
	}
	return s.p.userClient(u), nil
}

// ClientCredentialsTokenRequest makes the token request for a user acting as a client: the
// token's sub is the user's ID and its audience the service's.
func (s *storage) ClientCredentialsTokenRequest(_ context.Context, id string, scopes []string) (op.TokenRequest, error) {
	u, ok := s.p.users.byUsername[id]
	if !ok {
		return nil, errBadClient
	}
	return &ccRequest{subject: u.ID, clientID: u.Username, audience: []string{s.p.opts.Audience}, scopes: scopes}, nil
}

// SigningKey returns the current signing key.
func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return s.p.keys.Current(), nil }

// SignatureAlgorithms returns the one algorithm tokens are signed with.
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet returns every public key, the current one and the ones rotated out.
func (s *storage) KeySet(context.Context) ([]op.Key, error) { return s.p.keys.Public(), nil }

// GetKeyByIDAndClientID refuses: no client authenticates with a key of its own.
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errNoJWTAuth
}

// ValidateJWTProfileScopes is never reached, since GetKeyByIDAndClientID refuses.
func (s *storage) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

// Health reports the storage ready: it is memory.
func (s *storage) Health(context.Context) error { return nil }
