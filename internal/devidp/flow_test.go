package devidp

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

func TestAuthorizationCodeFlowWithPKCE(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	cfg := i.oauthConfig(t, webRedirect)
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL("the-state", oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("nonce", "the-nonce"))

	back := i.signIn(t, authURL, "libby", "libby-password")
	require.Equal(t, "localhost:5173", back.Host)
	require.Equal(t, "/auth/callback", back.Path)
	require.Equal(t, "the-state", back.Query().Get("state"))
	code := back.Query().Get("code")
	require.NotEmpty(t, code)

	tok, err := cfg.Exchange(t.Context(), code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	require.NotEmpty(t, tok.RefreshToken, "offline_access gives a refresh token")
	claims := verifiedClaims(t, i.accessVerifier(t), tok.AccessToken)
	require.Equal(t, "libby", claims["sub"])
	require.Equal(t, []any{"librarian"}, claims["roles"])
	require.Equal(t, "libby@example.org", claims["email"])

	provider, err := gooidc.NewProvider(t.Context(), i.issuer)
	require.NoError(t, err)
	idToken, err := provider.Verifier(&gooidc.Config{ClientID: "library-web"}).
		Verify(t.Context(), tok.Extra("id_token").(string))
	require.NoError(t, err)
	require.Equal(t, "the-nonce", idToken.Nonce)
	var profile map[string]any
	require.NoError(t, idToken.Claims(&profile))
	require.Equal(t, "Libby Librarian", profile["name"])
	require.Equal(t, true, profile["email_verified"])
	require.Equal(t, []any{"librarian"}, profile["roles"])

	_, err = cfg.Exchange(t.Context(), code, oauth2.VerifierOption(verifier))
	requireOAuthError(t, err, "invalid_grant")
}

func TestRefreshTokenIsReplacedOnUse(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	cfg := i.oauthConfig(t, "http://127.0.0.1:41234/")
	verifier := oauth2.GenerateVerifier()
	back := i.signIn(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), "alice", "alice-password")
	first, err := cfg.Exchange(t.Context(), back.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)

	refresh := func(rt string) (*oauth2.Token, error) {
		return cfg.TokenSource(t.Context(), &oauth2.Token{RefreshToken: rt}).Token()
	}
	second, err := refresh(first.RefreshToken)
	require.NoError(t, err)
	require.Equal(t, "alice", verifiedClaims(t, i.accessVerifier(t), second.AccessToken)["sub"])
	require.NotEqual(t, first.RefreshToken, second.RefreshToken)
	_, err = refresh(first.RefreshToken)
	requireOAuthError(t, err, "invalid_grant")
}

// ID tokens are the web app's alone: their only audience is its client id, never the service's,
// so that the service can't take one for an access token. Access tokens are the service's:
// their audience is the service's alone. So on a refresh too.
func TestIDTokensAreForTheWebAppOnly(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	cfg := i.oauthConfig(t, webRedirect)
	verifier := oauth2.GenerateVerifier()
	back := i.signIn(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), "alice", "alice-password")
	signedIn, err := cfg.Exchange(t.Context(), back.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	refreshed, err := cfg.TokenSource(t.Context(), &oauth2.Token{RefreshToken: signedIn.RefreshToken}).Token()
	require.NoError(t, err)

	for name, tok := range map[string]*oauth2.Token{"signed in": signedIn, "refreshed": refreshed} {
		idToken, ok := tok.Extra("id_token").(string)
		require.True(t, ok, "%s: an ID token", name)
		id := unverifiedClaims(t, idToken)
		require.Equal(t, []any{"library-web"}, id["aud"], "%s: the ID token's audience", name)
		require.Equal(t, "library-web", id["azp"], "%s: the ID token's authorized party", name)
		require.Equal(t, []any{"library"}, unverifiedClaims(t, tok.AccessToken)["aud"], "%s: the access token's audience", name)
		_, err := i.accessVerifier(t).Verify(t.Context(), idToken)
		require.ErrorContains(t, err, "audience", "%s: the ID token is not for the service", name)
	}
}

func TestWrongPasswordShowsTheFormAgain(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	cfg := i.oauthConfig(t, webRedirect)
	b := i.browser(t)
	form := get(t, b, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	require.Equal(t, http.StatusOK, form.status)
	id := form.url.Query().Get("id")

	again := postForm(t, b, i.issuer+"/login", url.Values{"id": {id}, "username": {"libby"}, "password": {"nope"}})
	require.Equal(t, http.StatusOK, again.status)
	require.Contains(t, again.body, `role="alert"`)
	require.Contains(t, again.body, `<label for="password">Password</label>`)
	require.Contains(t, again.body, `value="libby"`)
	require.NotContains(t, again.body, "nope")
	requireStrictPage(t, again)

	done := postForm(t, b, i.issuer+"/login", url.Values{"id": {id}, "username": {"libby"}, "password": {"libby-password"}})
	require.Equal(t, http.StatusFound, done.status)
}

func requireStrictPage(t *testing.T, p page) {
	t.Helper()
	csp := p.header.Get("Content-Security-Policy")
	require.Contains(t, csp, "default-src 'none'")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.NotContains(t, p.body, "<script")
	require.NotContains(t, p.body, "https://")
}

func TestLoginPageIsAccessibleAndEscaped(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	b := i.browser(t)
	cfg := i.oauthConfig(t, webRedirect)
	form := get(t, b, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	require.Contains(t, form.body, "<h1>Sign in to the library</h1>")
	require.Contains(t, form.body, `<label for="username">Username</label>`)
	require.Contains(t, form.body, `<button type="submit">Sign in</button>`)
	require.NotContains(t, form.body, `role="alert"`)
	requireStrictPage(t, form)
	require.Contains(t, form.header.Get("Content-Security-Policy"), "form-action 'self' http://localhost:5173")

	id := form.url.Query().Get("id")
	evil := postForm(t, b, i.issuer+"/login", url.Values{"id": {id}, "username": {`"><script>x</script>`}, "password": {"x"}})
	require.NotContains(t, evil.body, "<script>x")

	unknown := get(t, b, i.issuer+"/login?id=nope")
	require.Equal(t, http.StatusBadRequest, unknown.status)
}

// A demo provider's page lists its users with their passwords when asked to (the built-in ones,
// whose passwords are no secret), and never otherwise.
func TestLoginPageListsTheDemoUsersWhenAsked(t *testing.T) {
	t.Parallel()
	for _, show := range []bool{true, false} {
		i := startIDP(t, Options{ShowUsers: show})
		cfg := i.oauthConfig(t, webRedirect)
		form := get(t, i.browser(t), cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		require.Equal(t, http.StatusOK, form.status)
		requireStrictPage(t, form)
		for _, row := range []string{
			"<td>alice</td><td>alice-password</td><td>member</td>",
			"<td>libby</td><td>libby-password</td><td>librarian</td>",
			"<td>oscar</td><td>oscar-password</td><td>operator</td>",
		} {
			if show {
				require.Contains(t, form.body, row)
			} else {
				require.NotContains(t, form.body, "alice-password", "no password shown unless asked")
			}
		}
		require.Equal(t, show, strings.Contains(form.body, "demo provider"), "the note that says so")
	}
}

func TestFormActionAllowsTheWebAppOrigin(t *testing.T) {
	t.Parallel()
	require.Equal(t, "form-action 'self' http://localhost:5173", formAction("http://localhost:5173/cb?x=1"))
	require.Equal(t, "form-action 'self' https://library.example.org", formAction("https://library.example.org/cb"))
	require.Empty(t, formAction("http://[::1]:5173/cb"), "CSP cannot name an IPv6 literal")
	require.Empty(t, formAction("not a url"))
}

func TestPKCEIsRequiredAndChecked(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	cfg := i.oauthConfig(t, webRedirect)

	verifier := oauth2.GenerateVerifier()
	back := i.signIn(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), "alice", "alice-password")
	_, err := cfg.Exchange(t.Context(), back.Query().Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier()))
	requireOAuthError(t, err, "invalid_grant")
	_, err = cfg.Exchange(t.Context(), back.Query().Get("code"), oauth2.VerifierOption(verifier))
	requireOAuthError(t, err, "invalid_grant") // a code is spent by its first try, so its verifier cannot be guessed at

	for name, opts := range map[string][]oauth2.AuthCodeOption{
		"no challenge":    nil,
		"plain challenge": {oauth2.SetAuthURLParam("code_challenge", "abc"), oauth2.SetAuthURLParam("code_challenge_method", "plain")},
	} {
		refused := get(t, i.browser(t), cfg.AuthCodeURL("s", opts...))
		require.Equal(t, http.StatusFound, refused.status, name)
		to, err := url.Parse(refused.header.Get("Location"))
		require.NoError(t, err)
		require.Equal(t, "localhost:5173", to.Host, name)
		require.Equal(t, "invalid_request", to.Query().Get("error"), name)
	}
}

func TestOnlyLoopbackOrListedRedirectsAreAllowed(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{RedirectURIs: []string{"https://library.example.org/callback"}})
	cases := map[string]bool{
		"http://localhost/cb":                     true,
		"http://127.0.0.1:8080/any/path?x=1":      true,
		"http://[::1]:9000/cb":                    true,
		"https://library.example.org/callback":    true,
		"http://evil.example/cb":                  false,
		"https://evil.example/cb":                 false,
		"http://localhost:80@evil.example/cb":     false,
		"http://localhost.evil.example/cb":        false,
		"https://library.example.org/elsewhere":   false,
		"custom-scheme://localhost/cb":            false,
		"http://localhost:5173/cb#fragment":       false,
		"http://user:pass@localhost:5173/cb":      false,
		"https://library.example.org.evil.com/cb": false,
	}
	for redirect, allowed := range cases {
		cfg := i.oauthConfig(t, redirect)
		p := get(t, i.browser(t), cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		if allowed {
			require.Equal(t, http.StatusOK, p.status, redirect)
			require.Contains(t, p.body, "Sign in to the library", redirect)
			continue
		}
		require.Equal(t, http.StatusBadRequest, p.status, redirect)
		require.Empty(t, p.header.Get("Location"), redirect)
	}
}

func TestEndSessionRedirectsOnlyToLoopbackOrListed(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	logout := func(redirect string) page {
		q := url.Values{"client_id": {"library-web"}, "post_logout_redirect_uri": {redirect}, "state": {"st"}}
		return get(t, i.browser(t), i.issuer+"/end_session?"+q.Encode())
	}
	ok := logout("http://localhost:5173/signed-out")
	require.Equal(t, http.StatusFound, ok.status)
	require.Equal(t, "http://localhost:5173/signed-out?state=st", ok.header.Get("Location"))

	refused := logout("http://evil.example/signed-out")
	require.Equal(t, http.StatusBadRequest, refused.status)

	plain := get(t, i.browser(t), i.issuer+"/end_session")
	require.Equal(t, http.StatusOK, plain.status)
	require.Contains(t, plain.body, "signed out")
}

func requireOAuthError(t *testing.T, err error, code string) {
	t.Helper()
	var re *oauth2.RetrieveError
	require.True(t, errors.As(err, &re), "want an OAuth error, got %v", err)
	require.Equal(t, code, re.ErrorCode)
}
