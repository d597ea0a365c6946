package workload

import (
	"context"
	"fmt"
	"net/http"

	"library/bench/internal/environment"
)

// The cost of sign-in: the commands' payments again, against a service process of its own, on
// a database of its own, that checks every request's access token with an OpenID Connect
// provider: cmd/devidp, a process this program starts on a free port. Each worker sends a
// librarian's token of its own, fetched once before the cells, as a client reuses its token
// until it expires (an hour). The service verifies a token's signature the first time it sees
// it and then remembers it, so the warm-up pays for the checks and the cells measure a known
// token's cost: a hash and a map lookup, and the role checks.

// SignedInLabel labels the rows of the commands with a token.
const SignedInLabel = "commands with a token"

// signedIn is commands against the service with sign-in on, under its own label.
type signedIn struct{ *Commands }

// Name implements Measurement: the rows' label.
func (signedIn) Name() string { return SignedInLabel }

// SignedInService is a service process with sign-in on, its provider, and a librarian's
// tokens, one per worker.
type SignedInService struct {
	idp, svc *environment.Service
	tokens   []string
}

// StartSignedIn starts devidp, then the service at bin on a database of its own trusting it,
// and fetches a token for each of workers.
func StartSignedIn(ctx context.Context, idpBin, bin string, db *environment.Database, workers int) (*SignedInService, error) {
	s := &SignedInService{}
	var err error
	if s.idp, err = environment.StartDevIDP(ctx, idpBin); err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	if s.tokens, err = environment.FetchTokens(ctx, s.idp.BaseURL, workers); err != nil {
		s.Stop(ctx)
		return nil, fmt.Errorf("devidp: %w", err)
	}
	databaseURL, err := db.Another(ctx, "signin")
	if err == nil {
		s.svc, err = environment.StartService(ctx, bin, databaseURL, "REPLICA_ID=bench-signin",
			"AUTH=", "AUTH_ISSUER="+s.idp.BaseURL, "AUTH_AUDIENCE="+environment.TokenAudience, "AUTH_CLIENT_ID=library-web", "PAYMENTS=off")
	}
	if err == nil {
		err = refusesAnonymous(ctx, s.svc.BaseURL)
	}
	if err != nil {
		s.Stop(ctx)
		return nil, fmt.Errorf("the service with sign-in: %w", err)
	}
	environment.Logf("the service with sign-in ready at %s, trusting devidp at %s", s.svc.BaseURL, s.idp.BaseURL)
	return s, nil
}

// Measurement is the commands workload against the service, each worker with its token.
func (s *SignedInService) Measurement(accounts, conns int) Measurement {
	api := NewClient(s.svc.BaseURL, conns)
	callers := make([]*Client, len(s.tokens))
	for i, t := range s.tokens {
		callers[i] = api.as(t)
	}
	return signedIn{&Commands{API: callers[0], callers: callers, Accounts: accounts}}
}

// refusesAnonymous makes sure that sign-in is on: a payment without a token must be 401.
func refusesAnonymous(ctx context.Context, baseURL string) error {
	a, err := NewClient(baseURL, 1).post(ctx, "/accounts/bench-anonymous/payments", "", paymentBody)
	if err != nil {
		return err
	}
	if a.Status != http.StatusUnauthorized {
		return fmt.Errorf("a payment without a token was answered %d, not 401: is sign-in on?", a.Status)
	}
	return nil
}

// Stop stops the service, then its provider.
func (s *SignedInService) Stop(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	if s.svc != nil {
		if err := s.svc.Stop(ctx); err != nil {
			environment.Logf("stopping the service with sign-in: %v", err)
		}
	}
	if err := s.idp.Stop(ctx); err != nil {
		environment.Logf("stopping devidp: %v", err)
	}
}
