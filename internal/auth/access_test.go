package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/auth"
)

// An ID token is no access token, though the provider signed it for the service's audience:
// one that says so in its header type, or carries what only ID tokens carry (a nonce, at_hash,
// c_hash, Keycloak's typ ID), or was issued to the web app (azp, and aud naming it, as OpenID
// Connect wants of an ID token), is refused; so is a token of any other header type.
func TestVerifyRefusesIDTokens(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	v := newVerifier(t, p, auth.VerifierConfig{WebClientID: "library-web"})
	toWebApp := []string{"library-web", "library"}
	for name, token := range map[string]string{
		"with a nonce":          p.sign(t, map[string]any{"nonce": "n-0S6_WzA2Mj"}),
		"with at_hash":          p.sign(t, map[string]any{"at_hash": "77QmUPtjPfzWtF2AnpK9RQ"}),
		"with c_hash":           p.sign(t, map[string]any{"c_hash": "LDktKdoQak3Pk0cnXxCltA"}),
		"of Keycloak's type ID": p.sign(t, map[string]any{"typ": "ID"}),
		"issued to the web app": p.sign(t, map[string]any{"azp": "library-web", "aud": toWebApp}),
		"a logout token":        signTyped(t, p, "logout+jwt", map[string]any{"events": map[string]any{}}),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), token)
			require.ErrorIs(t, err, auth.ErrInvalidToken)
			assert.Contains(t, err.Error(), "not an access token")
		})
	}

	for name, token := range map[string]string{
		"typed at+jwt (RFC 9068), issued to the web app": signTyped(t, p, "at+jwt", map[string]any{"azp": "library-web", "aud": toWebApp}),
		"typed application/at+jwt":                       signTyped(t, p, "application/at+jwt", nil),
		// Keycloak's, Entra ID's and Auth0's access tokens name the client that asked for them.
		"for the service, asked for by the web app": p.sign(t, map[string]any{"azp": "library-web"}),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), token)
			require.NoError(t, err)
		})
	}
}

// signTyped signs claims over the usual ones with the header type typ.
func signTyped(t *testing.T, p *provider, typ string, claims map[string]any) string {
	t.Helper()
	all := map[string]any{"iss": p.issuer, "aud": "library", "sub": "alice", "exp": time.Now().Add(time.Hour).Unix(), "roles": []string{}}
	for k, v := range claims {
		all[k] = v
	}
	token, err := p.SignTyped(typ, all)
	require.NoError(t, err)
	return token
}
