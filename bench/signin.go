package main

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

// The cost of sign-in: the commands' payments again, against a service process of its own, on
// a database of its own, that checks every request's access token with an OpenID Connect
// provider: cmd/devidp, a process this program starts on a free port. Each worker sends a
// librarian's token of its own, fetched once before the cells, as a client reuses its token
// until it expires (an hour). The service verifies a token's signature the first time it sees
// it and then remembers it, so the warm-up pays for the checks and the cells measure a known
// token's cost: a hash and a map lookup, and the role checks.

const (
	signedInLabel = "commands with a token"
	tokenAudience = "library" // AUTH_AUDIENCE, and the audience devidp puts in its tokens
	// The librarian devidp knows by default: payments on any account and fines need one.
	librarian, librarianPassword = "libby", "libby-password"
)

// signedIn is commands against the service with sign-in on, under its own label.
type signedIn struct{ *commands }

func (signedIn) name() string { return signedInLabel }

// signedInService is a service process with sign-in on, its provider, and a librarian's
// tokens, one per worker.
type signedInService struct {
	idp, svc *service
	tokens   []string
}

// startSignedIn starts devidp, then the service at bin on a database of its own trusting it,
// and fetches a token for each of workers.
func startSignedIn(ctx context.Context, idpBin, bin string, db *database, workers int) (*signedInService, error) {
	s := &signedInService{}
	var err error
	if s.idp, err = startDevIDP(ctx, idpBin); err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	if s.tokens, err = fetchTokens(ctx, s.idp.BaseURL, workers); err != nil {
		s.stop(ctx)
		return nil, fmt.Errorf("devidp: %w", err)
	}
	databaseURL, err := db.another(ctx, "signin")
	if err == nil {
		s.svc, err = startService(ctx, bin, databaseURL, "REPLICA_ID=bench-signin",
			"AUTH=", "AUTH_ISSUER="+s.idp.BaseURL, "AUTH_AUDIENCE="+tokenAudience, "PAYMENTS=off")
	}
	if err == nil {
		err = refusesAnonymous(ctx, s.svc.BaseURL)
	}
	if err != nil {
		s.stop(ctx)
		return nil, fmt.Errorf("the service with sign-in: %w", err)
	}
	logf("the service with sign-in ready at %s, trusting devidp at %s", s.svc.BaseURL, s.idp.BaseURL)
	return s, nil
}

// measurement is the commands workload against the service, each worker with its token.
func (s *signedInService) measurement(accounts, conns int) measurement {
	api := newAPIClient(s.svc.BaseURL, conns)
	callers := make([]*apiClient, len(s.tokens))
	for i, t := range s.tokens {
		callers[i] = api.as(t)
	}
	return signedIn{&commands{api: callers[0], callers: callers, accounts: accounts}}
}

// refusesAnonymous makes sure that sign-in is on: a payment without a token must be 401.
func refusesAnonymous(ctx context.Context, baseURL string) error {
	a, err := newAPIClient(baseURL, 1).post(ctx, "/accounts/bench-anonymous/payments", "", paymentBody)
	if err != nil {
		return err
	}
	if a.status != http.StatusUnauthorized {
		return fmt.Errorf("a payment without a token was answered %d, not 401: is sign-in on?", a.status)
	}
	return nil
}

// stop stops the service, then its provider.
func (s *signedInService) stop(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	if s.svc != nil {
		if err := s.svc.Stop(ctx); err != nil {
			logf("stopping the service with sign-in: %v", err)
		}
	}
	if err := s.idp.Stop(ctx); err != nil {
		logf("stopping devidp: %v", err)
	}
}

// startDevIDP runs devidp on a free loopback port, as its own issuer, with its built-in users,
// and waits until its discovery answers.
func startDevIDP(ctx context.Context, bin string) (*service, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DEVIDP_ADDR="+strings.TrimPrefix(base, "http://"), "DEVIDP_ISSUER="+base,
		"DEVIDP_AUDIENCE="+tokenAudience, "DEVIDP_USERS=")
	return startProcess(ctx, cmd, base, "/.well-known/openid-configuration")
}

// fetchTokens gets n access tokens of the librarian, each its own, from the provider at
// issuer with the client credentials grant.
func fetchTokens(ctx context.Context, issuer string, n int) ([]string, error) {
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

// doJSON sends a request, after the edits, and decodes a 200 answer's JSON into v.
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
