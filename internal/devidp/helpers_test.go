package devidp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// webRedirect is a loopback redirect URI of the web app; nothing listens there.
const webRedirect = "http://localhost:5173/auth/callback"

// idp is a Provider served by an httptest server at its issuer.
type idp struct {
	*Provider
	issuer string
}

// startIDP serves a Provider on a new loopback listener, with the listener's URL as issuer.
func startIDP(t *testing.T, opts Options) idp {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	opts.Issuer = "http://" + srv.Listener.Addr().String()
	opts.Logger = slog.New(slog.DiscardHandler)
	p, err := New(opts)
	require.NoError(t, err)
	srv.Config.Handler = p.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return idp{Provider: p, issuer: opts.Issuer}
}

// accessVerifier verifies access tokens the way the service does.
func (i idp) accessVerifier(t *testing.T) *gooidc.IDTokenVerifier {
	t.Helper()
	provider, err := gooidc.NewProvider(t.Context(), i.issuer)
	require.NoError(t, err)
	return provider.Verifier(&gooidc.Config{ClientID: "library"})
}

// discovery fetches and decodes the discovery document.
func (i idp) discovery(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	getJSON(t, i.issuer+"/.well-known/openid-configuration", &doc)
	return doc
}

func (i idp) tokenURL(t *testing.T) string {
	t.Helper()
	return i.discovery(t)["token_endpoint"].(string)
}

// clientCredentials asks the token endpoint for a token as curl -u user:password would.
func (i idp) clientCredentials(t *testing.T, user, password string) page {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, i.tokenURL(t),
		strings.NewReader("grant_type=client_credentials"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(user, password)
	return do(t, http.DefaultClient, req)
}

// oauthConfig is the web app's client, as golang.org/x/oauth2 sees it.
func (i idp) oauthConfig(t *testing.T, redirect string) *oauth2.Config {
	doc := i.discovery(t)
	return &oauth2.Config{
		ClientID: "library-web",
		Endpoint: oauth2.Endpoint{
			AuthURL:   doc["authorization_endpoint"].(string),
			TokenURL:  doc["token_endpoint"].(string),
			AuthStyle: oauth2.AuthStyleInParams,
		},
		RedirectURL: redirect,
		Scopes:      []string{"openid", "profile", "email", "offline_access"},
	}
}

// browser returns a client with a cookie jar that follows redirects within the provider and
// stops at any other host, as a browser would land on the web app.
func (i idp) browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	host := strings.TrimPrefix(i.issuer, "http://")
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Host != host {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

// page is a response read whole.
type page struct {
	status int
	url    *url.URL
	header http.Header
	body   string
}

func do(t *testing.T, c *http.Client, req *http.Request) page {
	t.Helper()
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return page{status: resp.StatusCode, url: resp.Request.URL, header: resp.Header, body: string(body)}
}

func get(t *testing.T, c *http.Client, rawURL string) page {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, rawURL, nil)
	require.NoError(t, err)
	return do(t, c, req)
}

func postForm(t *testing.T, c *http.Client, rawURL string, form url.Values) page {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, rawURL, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, c, req)
}

func getJSON(t *testing.T, rawURL string, into any) {
	t.Helper()
	p := get(t, http.DefaultClient, rawURL)
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.NoError(t, json.Unmarshal([]byte(p.body), into))
}

// signIn drives the browser from the authorize URL through the sign-in form, and returns the
// final redirect to the web app.
func (i idp) signIn(t *testing.T, authURL, username, password string) *url.URL {
	t.Helper()
	b := i.browser(t)
	form := get(t, b, authURL)
	require.Equal(t, http.StatusOK, form.status, form.body)
	require.Contains(t, form.body, "Sign in to the library")
	done := postForm(t, b, i.issuer+"/login", url.Values{
		"id": {form.url.Query().Get("id")}, "username": {username}, "password": {password},
	})
	require.Equal(t, http.StatusFound, done.status, done.body)
	to, err := url.Parse(done.header.Get("Location"))
	require.NoError(t, err)
	return to
}

// unverifiedClaims decodes a JWT's payload without checking it.
func unverifiedClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.RS256})
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims))
	return claims
}

func keyID(t *testing.T, token string) string {
	t.Helper()
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.RS256})
	require.NoError(t, err)
	return jws.Signatures[0].Header.KeyID
}

// verifiedClaims verifies an access token as the service does and returns its claims.
func verifiedClaims(t *testing.T, v *gooidc.IDTokenVerifier, token string) map[string]any {
	t.Helper()
	tok, err := v.Verify(t.Context(), token)
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, tok.Claims(&claims))
	return claims
}
