package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"library/internal/auth"
	"library/internal/httpapi"
)

// signIn says how the service knows who calls: its Guard, and the Verifier behind it (nil with
// sign-in off).
func (a *App) signIn() (*auth.Guard, *auth.Verifier) {
	if a.cfg.AuthIssuer == "" {
		return auth.NewGuard(nil, a.cfg.AdminToken), nil
	}
	v := auth.NewVerifier(auth.VerifierConfig{
		Issuer: a.cfg.AuthIssuer, Audience: a.cfg.AuthAudience, WebClientID: a.cfg.AuthClientID,
		RolesClaim: a.cfg.AuthRolesClaim, MemberClaim: a.cfg.AuthMemberClaim,
		Logger: a.logger, // tokens expire by the wall clock, whatever clock the library keeps
	})
	return auth.NewGuard(v, a.cfg.AdminToken), v
}

// openWarningEvery is how often a service that runs without sign-in says so again.
const openWarningEvery = time.Hour

// startSignIn reads the provider's discovery in the background, or, with sign-in off, says
// loudly that anyone may do anything: at start and every hour, so that it is in any window of
// the logs that someone reads.
func (a *App) startSignIn(ctx context.Context) {
	if a.verifier != nil {
		a.verifier.Start(ctx)
		return
	}
	warn := func() {
		if a.cfg.AuthOff {
			a.logger.Warn("AUTH=off: no sign-in; anyone who can reach this service may read every account, charge fines and record payments")
		} else {
			a.logger.Warn("no sign-in: in memory without AUTH_ISSUER, anyone who can reach this service may do anything; set AUTH_ISSUER and AUTH_AUDIENCE to sign people in")
		}
	}
	warn()
	a.sayWhoCanReach()
	go func() {
		tick := time.NewTicker(openWarningEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				warn()
			}
		}
	}()
}

// sayWhoCanReach says, at the start of an open service, who can reach it: this machine only
// (HTTP_ADDR's default while open), or every machine that reaches the address it listens on.
func (a *App) sayWhoCanReach() {
	addr := a.listener.Addr()
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		a.logger.Info(fmt.Sprintf("no sign-in: serving this machine only (%s); set HTTP_ADDR (such as :8080) to serve others, "+
			"who may then do anything", addr))
		return
	}
	a.logger.Warn(fmt.Sprintf("no sign-in: serving other machines too (%s, HTTP_ADDR): anyone who reaches it may do anything", addr))
}

// signInRoutes serve GET /config.json: what a web app needs to sign people in, the replicas its
// operations page may watch, and whether members pay online.
type signInRoutes struct{ cfg Config }

// signInConfig is GET /config.json.
type signInConfig struct {
	Auth *providerConfig `json:"auth"`
	// Open is true while sign-in is off: the web app says so on every page.
	Open bool `json:"open"`
	// Replicas are the other replicas the operations page may watch and send tokens to
	// (OPERATIONS_REPLICAS), besides the origin that served it.
	Replicas []string `json:"replicas"`
	// Payments is true when members pay fines online (PAYMENTS=stripe): the web app shows its
	// Pay form only then.
	Payments bool `json:"payments"`
}

type providerConfig struct {
	Issuer   string  `json:"issuer"`
	ClientID *string `json:"clientId"`
	Audience string  `json:"audience"`
	// LogoutIDTokenHint: the provider wants the ID token as id_token_hint to sign out.
	LogoutIDTokenHint bool `json:"logoutIdTokenHint"`
}

func (s signInRoutes) Routes(r chi.Router) {
	view := signInConfig{Open: s.cfg.AuthIssuer == "", Replicas: append([]string{}, s.cfg.OperationsReplicas...), Payments: s.cfg.Payments.On()}
	if !view.Open {
		view.Auth = &providerConfig{Issuer: s.cfg.AuthIssuer, Audience: s.cfg.AuthAudience, LogoutIDTokenHint: s.cfg.AuthLogoutIDTokenHint}
		if s.cfg.AuthClientID != "" {
			view.Auth.ClientID = &s.cfg.AuthClientID
		}
	}
	r.Get("/config.json", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, r, http.StatusOK, view)
	})
}
