package auth_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/auth"
	"library/internal/devidp"
)

// provider is a real OpenID provider (package devidp) on loopback, which a test may stop. It
// counts the fetches of its key set.
type provider struct {
	*devidp.Provider
	issuer     string
	server     *httptest.Server
	keyFetches atomic.Int64
}

// startProvider starts a provider on addr ("127.0.0.1:0" for any port).
func startProvider(t *testing.T, addr string) *provider {
	t.Helper()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", addr)
	require.NoError(t, err)
	issuer := "http://" + ln.Addr().String()
	p, err := devidp.New(devidp.Options{Issuer: issuer, Audience: "library", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	pr := &provider{Provider: p, issuer: issuer}
	idp := p.Handler()
	pr.server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/keys" {
			pr.keyFetches.Add(1)
		}
		idp.ServeHTTP(w, r)
	})}}
	pr.server.Start()
	t.Cleanup(pr.server.Close)
	return pr
}

func (p *provider) token(t *testing.T, username string) string {
	t.Helper()
	token, err := p.Token(context.Background(), username)
	require.NoError(t, err)
	return token
}

// sign signs claims over the usual ones (iss, aud, sub alice, exp in an hour).
func (p *provider) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	all := map[string]any{"iss": p.issuer, "aud": "library", "sub": "alice", "exp": time.Now().Add(time.Hour).Unix(),
		"iat": time.Now().Unix(), "roles": []string{}}
	for k, v := range claims {
		if v == nil {
			delete(all, k)
		} else {
			all[k] = v
		}
	}
	token, err := p.Sign(all)
	require.NoError(t, err)
	return token
}

func newVerifier(t *testing.T, p *provider, cfg auth.VerifierConfig) *auth.Verifier {
	t.Helper()
	cfg.Issuer, cfg.Audience = p.issuer, "library"
	v := auth.NewVerifier(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v.Start(ctx)
	require.Eventually(t, func() bool { return v.Ready() == nil }, 10*time.Second, 10*time.Millisecond, "discovery read")
	return v
}

// A real token from the provider gives its person: subject, issuer, member id, roles, and the
// email the provider vouches for.
func TestVerifyAToken(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	v := newVerifier(t, p, auth.VerifierConfig{})
	c, err := v.Verify(context.Background(), p.token(t, "libby"))
	require.NoError(t, err)
	assert.Equal(t, "libby", c.Subject)
	assert.Equal(t, p.issuer, c.Issuer)
	assert.Equal(t, "libby", c.MemberID)
	assert.Equal(t, "libby@example.org", c.Email)
	assert.Equal(t, []auth.Role{auth.Member, auth.Librarian}, c.Roles())

	c, err = v.Verify(context.Background(), p.token(t, "alice"))
	require.NoError(t, err)
	assert.Equal(t, []auth.Role{auth.Member}, c.Roles(), "every signed-in person is a member")
}

// Tokens the provider would never issue, or that someone forged, are refused, each with a
// reason that names no secret.
func TestVerifyRefusesBadTokens(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	v := newVerifier(t, p, auth.VerifierConfig{})
	good := p.token(t, "alice")
	parts := strings.Split(good, ".")
	for name, tc := range map[string]struct {
		token, reason string
	}{
		"expired beyond the skew":         {p.sign(t, map[string]any{"exp": time.Now().Add(-2 * time.Minute).Unix()}), "expired"},
		"no expiry":                       {p.sign(t, map[string]any{"exp": nil}), "no expiry"},
		"not valid yet":                   {p.sign(t, map[string]any{"nbf": time.Now().Add(10 * time.Minute).Unix()}), "not valid yet"},
		"another audience":                {p.sign(t, map[string]any{"aud": "another-service"}), "audience"},
		"another issuer":                  {p.sign(t, map[string]any{"iss": "https://evil.example"}), "another provider"},
		"no subject":                      {p.sign(t, map[string]any{"sub": nil}), "subject"},
		"alg none":                        {unsigned(t, parts[1]), "algorithm"},
		"HS256 keyed with the public key": {hs256(t, parts[1], p.PublicKeyPEM()), "algorithm"},
		"a payload changed":               {parts[0] + "." + reencode(t, parts[1], "sub", "bob") + "." + parts[2], "signature"},
		"garbage":                         {"not-a-jwt", "well-formed"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token)
			require.ErrorIs(t, err, auth.ErrInvalidToken)
			assert.Contains(t, err.Error(), tc.reason)
			assert.NotContains(t, err.Error(), tc.token)
		})
	}
	// Within the allowed clock skew, a token just past its expiry still counts.
	_, err := v.Verify(context.Background(), p.sign(t, map[string]any{"exp": time.Now().Add(-30 * time.Second).Unix()}))
	require.NoError(t, err)
}

// The provider rotates its key: tokens signed with the new key verify without a restart (the
// key set is fetched again for a key id it does not know, once 30 s have passed since the last
// fetch), and older ones still do.
func TestVerifyFollowsKeyRotation(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	c := newClock()
	v := newVerifier(t, p, auth.VerifierConfig{Now: c.Now})
	before := p.token(t, "alice")
	_, err := v.Verify(context.Background(), before)
	require.NoError(t, err)
	oldKey := p.KeyID()
	require.NoError(t, p.RotateKey())
	require.NotEqual(t, oldKey, p.KeyID())
	after := p.sign(t, map[string]any{"sub": "bob"})
	_, err = v.Verify(context.Background(), after)
	require.ErrorIs(t, err, auth.ErrInvalidToken, "within 30 s of the last fetch, the key set is not fetched again")

	c.Advance(auth.KeyRefetchInterval)
	got, err := v.Verify(context.Background(), after)
	require.NoError(t, err)
	assert.Equal(t, "bob", got.Subject)
	_, err = v.Verify(context.Background(), p.sign(t, map[string]any{"sub": "carol"}))
	require.NoError(t, err)
	_, err = v.Verify(context.Background(), before)
	require.NoError(t, err)
}

// A provider that can't be reached at start leaves the verifier not ready, saying why, until it
// can be; a later outage keeps the keys it has.
func TestVerifyWaitsForTheProvider(t *testing.T) {
	t.Parallel()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there yet

	v := auth.NewVerifier(auth.VerifierConfig{Issuer: "http://" + addr, Audience: "library"})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v.Start(ctx)
	require.Error(t, v.Ready())
	assert.Contains(t, v.Ready().Error(), "http://"+addr, "readiness names the provider it waits for")
	_, err = v.Verify(context.Background(), "x.y.z")
	require.ErrorIs(t, err, auth.ErrNotReady)

	p := startProvider(t, addr)
	require.Eventually(t, func() bool { return v.Ready() == nil }, 20*time.Second, 20*time.Millisecond, "ready once the provider answers")
	token := p.sign(t, map[string]any{"sub": "before-the-outage"})
	_, err = v.Verify(context.Background(), p.token(t, "alice")) // fetches the keys
	require.NoError(t, err)

	p.server.Close()
	c, err := v.Verify(context.Background(), token)
	require.NoError(t, err, "the keys fetched before the outage still verify")
	assert.Equal(t, "before-the-outage", c.Subject)
}

// Roles and the member id come from the claims the settings name: a dotted path (Keycloak's
// realm_access.roles), groups (Entra ID), and a member claim that is not a member id leaves
// the person without one. An email the provider does not vouch for is not taken.
func TestVerifyReadsTheConfiguredClaims(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	keycloak := newVerifier(t, p, auth.VerifierConfig{RolesClaim: "realm_access.roles", MemberClaim: "preferred_username"})
	c, err := keycloak.Verify(context.Background(), p.sign(t, map[string]any{
		"realm_access": map[string]any{"roles": []string{"offline_access", "librarian"}}, "preferred_username": "libby.k",
		"email": "libby@example.org", "email_verified": false,
	}))
	require.NoError(t, err)
	assert.Equal(t, []auth.Role{auth.Member, auth.Librarian}, c.Roles())
	assert.Equal(t, "libby.k", c.MemberID)
	assert.Empty(t, c.Email, "an address the provider does not vouch for")

	entra := newVerifier(t, p, auth.VerifierConfig{RolesClaim: "groups"})
	c, err = entra.Verify(context.Background(), p.sign(t, map[string]any{"groups": []string{"operator"}, "sub": "not/an id"}))
	require.NoError(t, err)
	assert.Equal(t, []auth.Role{auth.Member, auth.Operator}, c.Roles())
	assert.Empty(t, c.MemberID, "a subject that is not a member id")
}

// unsigned is a token with alg none and no signature.
func unsigned(t *testing.T, payload string) string {
	t.Helper()
	return b64(t, map[string]any{"alg": "none", "typ": "JWT"}) + "." + payload + "."
}

// hs256 is a token signed HS256 with key as the shared secret.
func hs256(t *testing.T, payload string, key []byte) string {
	t.Helper()
	head := b64(t, map[string]any{"alg": "HS256", "typ": "JWT"})
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(head + "." + payload))
	return head + "." + payload + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func b64(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return base64.RawURLEncoding.EncodeToString(b)
}

// reencode changes one claim of an encoded payload.
func reencode(t *testing.T, payload, claim string, value any) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(raw, &claims))
	claims[claim] = value
	return b64(t, claims)
}
