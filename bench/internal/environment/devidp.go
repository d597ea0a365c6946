package environment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Who the services the benchmark starts with sign-in trust, and whom they let in.
const (
	// TokenAudience is AUTH_AUDIENCE, and the audience devidp puts in its tokens.
	TokenAudience = "library"
	// The librarian devidp knows by default: payments on any account and fines need one.
	librarian, librarianPassword = "libby", "libby-password"
)

// StartDevIDP runs devidp on a free loopback port, as its own issuer, with its built-in users,
// and waits until its discovery answers.
func StartDevIDP(ctx context.Context, bin string) (*Service, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DEVIDP_ADDR="+strings.TrimPrefix(base, "http://"), "DEVIDP_ISSUER="+base,
		"DEVIDP_AUDIENCE="+TokenAudience, "DEVIDP_USERS=")
	return startProcess(ctx, cmd, base, "/.well-known/openid-configuration")
}

// FetchTokens gets n access tokens of the librarian, each its own, from the provider at
// issuer with the client credentials grant.
func FetchTokens(ctx context.Context, issuer string, n int) ([]string, error) {
	endpoint, err := tokenEndpoint(ctx, issuer)
	if err != nil {
		return nil, err
	}
	tokens := make([]string, n)
	for i := range tokens {
		if tokens[i], err = fetchToken(ctx, endpoint); err != nil {
			return nil, err
		}
	}
	return tokens, nil
}

// tokenEndpoint reads token_endpoint from the provider's discovery.
func tokenEndpoint(ctx context.Context, issuer string) (string, error) {
	var discovery struct {
		TokenEndpoint string `json:"token_endpoint"`
	}
	if err := doJSON(ctx, http.MethodGet, issuer+"/.well-known/openid-configuration", "", &discovery); err != nil {
		return "", err
	}
	if discovery.TokenEndpoint == "" {
		return "", errors.New("the discovery document names no token_endpoint")
	}
	return discovery.TokenEndpoint, nil
}

// fetchToken asks the token endpoint for one access token of the librarian.
func fetchToken(ctx context.Context, endpoint string) (string, error) {
	var token struct {
		AccessToken string `json:"access_token"`
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	req := func(r *http.Request) {
		r.SetBasicAuth(librarian, librarianPassword)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if err := doJSON(ctx, http.MethodPost, endpoint, form.Encode(), &token, req); err != nil {
		return "", err
	}
	if token.AccessToken == "" {
		return "", fmt.Errorf("POST %s: no access_token in the answer", endpoint)
	}
	return token.AccessToken, nil
}

// DoJSON sends a request, after the edits, and decodes a 200 answer's JSON into v.
func doJSON(ctx context.Context, method, target, body string, v any, edits ...func(*http.Request)) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, method, target, strings.NewReader(body))
	if err != nil {
		return err
	}
	for _, edit := range edits {
		edit(r)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, target, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s %s: %w", method, target, err)
	}
	return nil
}
