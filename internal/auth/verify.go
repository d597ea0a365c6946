package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
)

// MaxClockSkew is how far the service's clock and the provider's may disagree about a token's
// expiry and not-before times.
const MaxClockSkew = 60 * time.Second

// asymmetric are the signing algorithms a token may use: never "none", never HMAC, whose key
// would be the provider's public key.
var asymmetric = []string{
	oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512,
	oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA,
}

// asymmetricJOSE is asymmetric, as go-jose names them.
var asymmetricJOSE = func() []jose.SignatureAlgorithm {
	algs := make([]jose.SignatureAlgorithm, len(asymmetric))
	for i, a := range asymmetric {
		algs[i] = jose.SignatureAlgorithm(a)
	}
	return algs
}()

// VerifierConfig says which provider to trust and how to read its tokens.
type VerifierConfig struct {
	// Issuer is the provider's URL (AUTH_ISSUER): its discovery document is at
	// Issuer/.well-known/openid-configuration, and tokens must carry it as iss.
	Issuer string
	// Audience must be among a token's aud (AUTH_AUDIENCE).
	Audience string
	// WebClientID is the web app's client id at the provider (AUTH_CLIENT_ID), whose ID tokens
	// are refused; empty when there is no web app.
	WebClientID string
	// RolesClaim is the dotted path of the roles claim (AUTH_ROLES_CLAIM). Default "roles".
	RolesClaim string
	// MemberClaim names the claim that holds the member id (AUTH_MEMBER_CLAIM). Default "sub".
	MemberClaim string
	// Now is the clock of expiries, of the token cache and of the key set's fetches. Default
	// time.Now.
	Now func() time.Time
	// Client fetches discovery and keys. Default http.DefaultClient with a 10 s timeout.
	Client *http.Client
	// Logger hears of discovery failures and recoveries.
	Logger *slog.Logger
	// CacheSize bounds the tokens remembered as verified. Default 10000.
	CacheSize int
}

// Verifier checks access tokens from one provider. Its methods are safe for concurrent use.
type Verifier struct {
	cfg     VerifierConfig
	trust   atomic.Pointer[trust] // nil until discovery succeeded
	mu      sync.Mutex
	lastErr error // why discovery has not succeeded yet
	cache   *tokenCache
}

// trust is what discovery found: the provider's key set, and go-oidc's verifier over it.
type trust struct {
	verifier *oidc.IDTokenVerifier
	keys     *keySet
}

// ErrInvalidToken is the reason of every refused token: its detail says why, in words fit for
// the token's sender.
var ErrInvalidToken = errors.New("invalid token")

// NewVerifier returns a Verifier that has not read the provider's discovery yet: Start does.
func NewVerifier(cfg VerifierConfig) *Verifier {
	if cfg.RolesClaim == "" {
		cfg.RolesClaim = "roles"
	}
	if cfg.MemberClaim == "" {
		cfg.MemberClaim = "sub"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 10_000
	}
	return &Verifier{cfg: cfg, lastErr: errors.New("the provider's discovery document has not been read yet"),
		cache: newTokenCache(cfg.CacheSize)}
}

// Start reads the provider's discovery document, and keeps trying in the background until it
// has, with a growing wait between tries (up to 30 s), until ctx ends. It returns at once.
func (v *Verifier) Start(ctx context.Context) {
	go func() {
		wait := 250 * time.Millisecond
		for {
			err := v.discover(ctx)
			if err == nil || ctx.Err() != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, 30*time.Second)
		}
	}()
}

// discover reads the discovery document and the key set it names once and, when it can, makes
// the token verifier.
func (v *Verifier) discover(ctx context.Context) error {
	t, err := v.trustProvider(ctx)
	if err != nil {
		v.mu.Lock()
		first := v.lastErr == nil || v.lastErr.Error() != err.Error()
		v.lastErr = err
		v.mu.Unlock()
		if first {
			v.cfg.Logger.Warn("auth: the OpenID provider can't be reached yet; requests with a token are answered 503",
				"issuer", v.cfg.Issuer, "error", err)
		}
		return err
	}
	v.trust.Store(t)
	v.mu.Lock()
	v.lastErr = nil
	v.mu.Unlock()
	v.cfg.Logger.Info("auth: trusting the OpenID provider", "issuer", v.cfg.Issuer, "audience", v.cfg.Audience)
	return nil
}

func (v *Verifier) trustProvider(ctx context.Context) (*trust, error) {
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, v.cfg.Client), v.cfg.Issuer)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		KeysURL string `json:"jwks_uri"`
	}
	if err := provider.Claims(&doc); err != nil || doc.KeysURL == "" {
		return nil, errors.New("the provider's discovery document names no key set (jwks_uri)")
	}
	keys, err := fetchKeySet(ctx, doc.KeysURL, v.cfg.Client, v.cfg.Now, v.cfg.Logger)
	if err != nil {
		return nil, err
	}
	return &trust{keys: keys, verifier: oidc.NewVerifier(doc.Issuer, keys, &oidc.Config{
		ClientID:             v.cfg.Audience,
		SupportedSigningAlgs: asymmetric,
		SkipExpiryCheck:      true, // checked in caller, with MaxClockSkew
	})}, nil
}

// Ready is nil once the provider's discovery document has been read; until then it says why
// not.
func (v *Verifier) Ready() error {
	if v.trust.Load() != nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return fmt.Errorf("the OpenID provider at AUTH_ISSUER (%s) can't be reached: %w", v.cfg.Issuer, v.lastErr)
}

// ErrNotReady is returned by Verify while the provider's discovery has not been read.
var ErrNotReady = errors.New("the OpenID provider has not been reached yet")

// Verify checks a raw access token and returns its caller. A refused token is an error that
// wraps ErrInvalidToken; ErrNotReady means it could not be checked yet.
func (v *Verifier) Verify(ctx context.Context, raw string) (Caller, error) {
	t := v.trust.Load()
	if t == nil {
		return Caller{}, ErrNotReady
	}
	key := sha256.Sum256([]byte(raw))
	now := v.cfg.Now()
	if c, ok := v.cache.get(key, now, t.keys.has); ok {
		return c, nil
	}
	var signer signedBy
	token, err := t.verifier.Verify(withSignedBy(ctx, &signer), raw)
	if err != nil {
		return Caller{}, fmt.Errorf("%w: %s", ErrInvalidToken, reason(err))
	}
	var claims map[string]any
	if err := token.Claims(&claims); err != nil {
		return Caller{}, fmt.Errorf("%w: its claims can't be read", ErrInvalidToken)
	}
	if err := v.accessTokenOnly(signer.headerType, token, claims); err != nil {
		return Caller{}, err
	}
	c, err := v.caller(token, claims, now)
	if err != nil {
		return Caller{}, err
	}
	v.cache.put(key, c, signer.keyID, now)
	return c, nil
}
