package devidp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDiscoveryAndKeysAreServed(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	doc := i.discovery(t)
	require.Equal(t, i.issuer, doc["issuer"])
	require.Equal(t, i.issuer+"/oauth/token", doc["token_endpoint"])
	require.Equal(t, i.issuer+"/authorize", doc["authorization_endpoint"])
	require.Equal(t, i.issuer+"/end_session", doc["end_session_endpoint"])
	require.Equal(t, i.issuer+"/keys", doc["jwks_uri"])
	require.Contains(t, doc["code_challenge_methods_supported"], "S256")
	require.Contains(t, doc["grant_types_supported"], "client_credentials")
	require.Contains(t, doc["grant_types_supported"], "refresh_token")
	require.Equal(t, []any{"RS256"}, doc["id_token_signing_alg_values_supported"])

	var jwks struct {
		Keys []map[string]any `json:"keys"`
	}
	getJSON(t, doc["jwks_uri"].(string), &jwks)
	require.Len(t, jwks.Keys, 1)
	require.Equal(t, "RSA", jwks.Keys[0]["kty"])
	require.Equal(t, "RS256", jwks.Keys[0]["alg"])
	require.Equal(t, "sig", jwks.Keys[0]["use"])
	require.Equal(t, i.KeyID(), jwks.Keys[0]["kid"])
	require.NotContains(t, jwks.Keys[0], "d", "the private exponent must not be served")
}

func TestClientCredentialsTokenVerifiesAndCarriesTheClaims(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{TokenLifetime: 10 * time.Minute})
	resp := i.clientCredentials(t, "libby", "libby-password")
	require.Equal(t, http.StatusOK, resp.status, resp.body)
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.body), &body))
	require.Equal(t, "Bearer", body.TokenType)
	require.InDelta(t, 600, body.ExpiresIn, 5)

	claims := verifiedClaims(t, i.accessVerifier(t), body.AccessToken)
	require.Equal(t, i.issuer, claims["iss"])
	require.Equal(t, "libby", claims["sub"])
	require.Equal(t, "library", audienceOf(claims))
	require.Equal(t, []any{"librarian"}, claims["roles"])
	require.Equal(t, "libby@example.org", claims["email"])
	require.Equal(t, true, claims["email_verified"])
	require.Equal(t, "Libby Librarian", claims["name"])
	require.InDelta(t, float64(time.Now().Add(10*time.Minute).Unix()), claims["exp"], 5)
}

// audienceOf returns aud when it holds one audience, as a string either way.
func audienceOf(claims map[string]any) string {
	if list, ok := claims["aud"].([]any); ok && len(list) == 1 {
		return list[0].(string)
	}
	s, _ := claims["aud"].(string)
	return s
}

func TestMemberTokenHasEmptyRoles(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	token, err := i.Token(t.Context(), "alice")
	require.NoError(t, err)
	claims := verifiedClaims(t, i.accessVerifier(t), token)
	require.Equal(t, []any{}, claims["roles"])
	require.Equal(t, "alice", claims["sub"])
}

func TestWrongSecretIsRefused(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	for _, c := range []struct{ user, password string }{
		{"libby", "wrong"}, {"libby", ""}, {"nobody", "libby-password"}, {"library-web", ""},
	} {
		resp := i.clientCredentials(t, c.user, c.password)
		require.Equal(t, http.StatusUnauthorized, resp.status, c)
		var body map[string]any
		require.NoError(t, json.Unmarshal([]byte(resp.body), &body))
		require.Equal(t, "invalid_client", body["error"])
		require.NotContains(t, body, "access_token")
	}
}

func TestTokenHookMatchesTheEndpoint(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	resp := i.clientCredentials(t, "oscar", "oscar-password")
	require.Equal(t, http.StatusOK, resp.status, resp.body)
	var body struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.body), &body))
	hook, err := i.Token(t.Context(), "oscar")
	require.NoError(t, err)

	fromEndpoint, fromHook := unverifiedClaims(t, body.AccessToken), unverifiedClaims(t, hook)
	for _, varying := range []string{"jti", "iat", "nbf", "exp"} {
		require.Contains(t, fromHook, varying)
		delete(fromEndpoint, varying)
		delete(fromHook, varying)
	}
	require.Equal(t, fromEndpoint, fromHook)
	verifiedClaims(t, i.accessVerifier(t), hook)

	_, err = i.Token(t.Context(), "nobody")
	require.Error(t, err)
}

func TestUserinfoCarriesTheProfile(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	token, err := i.Token(t.Context(), "libby")
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, i.issuer+"/userinfo", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	p := do(t, http.DefaultClient, req)
	require.Equal(t, http.StatusOK, p.status, p.body)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(p.body), &info))
	require.Equal(t, "libby", info["sub"])
	require.Equal(t, []any{"librarian"}, info["roles"])
	require.Equal(t, true, info["email_verified"])
	require.Equal(t, "Libby Librarian", info["name"])
}

func TestCrossOriginRequestsFromTheWebApp(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{RedirectURIs: []string{"https://library.example.org/callback"}})
	cases := []struct {
		origin  string
		allowed bool
	}{
		{"http://localhost:8080", true},
		{"http://127.0.0.1:8080", true},
		{"http://[::1]:8080", true},
		{"https://library.example.org", true},
		{"https://evil.example", false},
		{"http://localhost.evil.example", false},
	}
	for _, c := range cases {
		discovery := corsRequest(t, http.MethodGet, i.issuer+"/.well-known/openid-configuration", c.origin, nil)
		preflight := corsRequest(t, http.MethodOptions, i.issuer+"/oauth/token", c.origin, http.Header{
			"Access-Control-Request-Method":  {"POST"},
			"Access-Control-Request-Headers": {"content-type"},
		})
		token := corsRequest(t, http.MethodPost, i.issuer+"/oauth/token", c.origin, http.Header{
			"Content-Type": {"application/x-www-form-urlencoded"},
		})
		want := ""
		if c.allowed {
			want = c.origin
		}
		for _, p := range []page{discovery, preflight, token} {
			require.Equal(t, want, p.header.Get("Access-Control-Allow-Origin"), c.origin)
		}
		if c.allowed {
			require.Contains(t, strings.ToLower(preflight.header.Get("Access-Control-Allow-Methods")), "post")
		}
	}
}

func corsRequest(t *testing.T, method, rawURL, origin string, h http.Header) page {
	t.Helper()
	var body *strings.Reader
	if method == http.MethodPost {
		body = strings.NewReader(url.Values{"grant_type": {"authorization_code"}, "code": {"x"}}.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequestWithContext(t.Context(), method, rawURL, body)
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Origin", origin)
	return do(t, http.DefaultClient, req)
}

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Issuer: ""},
		{Issuer: "ftp://127.0.0.1:1"},
		{Issuer: "http://127.0.0.1:1?x=1"},
		{Issuer: "http://127.0.0.1:1", Users: []User{}},
		{Issuer: "http://127.0.0.1:1", Users: []User{{ID: "a", Username: "library-web", Password: "p"}}},
	} {
		_, err := New(opts)
		require.Error(t, err, opts)
	}
}
