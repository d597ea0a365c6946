package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/paytest"
	"library/internal/testkit/syncbuf"
)

// A provider that can't be reached at start keeps the service not ready, saying which one, and
// a request with a token is a 503 (never let through, never a 401 for a good token); once the
// provider answers, the service is ready without a restart.
func TestNotReadyUntilTheProviderAnswers(t *testing.T) {
	t.Parallel()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	issuer := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	cfg := app.Config{HTTPAddr: "127.0.0.1:0", AuthIssuer: issuer, AuthAudience: apitest.Audience, AuthClientID: apitest.WebClientID}
	service, err := app.New(context.Background(), cfg, slogTo(t, io.Discard))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- service.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	a := &api{Base: "http://" + service.Addr(), Store: "memory"}
	p := requireProblem(t, a.Get(t, "/readyz"), http.StatusServiceUnavailable, "Unavailable")
	assert.Contains(t, p.Detail, issuer)
	requireProblem(t, a.Call(t, http.MethodGet, "/accounts/me", nil, "Authorization", "Bearer x.y.z"), http.StatusServiceUnavailable, "Unavailable")
	assert.Equal(t, http.StatusOK, a.Get(t, "/books").Status, "what needs no token is served")

	idp := apitest.StartProviderAt(t, issuer)
	eventually(t, 20*time.Second, func() bool { return a.Get(t, "/readyz").Status == http.StatusOK }, "ready once the provider answers")
	require.Equal(t, http.StatusOK, a.Call(t, http.MethodGet, "/accounts/me", nil, "Authorization", idp.Bearer(t, "alice")).Status)
}

// The web app's ID token opens nothing: signed in through the provider's page, the access token
// says who the person is, and the ID token given with it is refused as not an access token.
func TestAnIDTokenIsNoAccessToken(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	a := apitest.Launch(t, apitest.WithSignIn(fastBackground(app.Config{}), idp), slogTo(t, io.Discard)).API("memory")
	access, id := idp.SignInAsTheWebApp(t, "alice")
	require.Equal(t, http.StatusOK, a.Call(t, http.MethodGet, "/accounts/me", nil, "Authorization", "Bearer "+access).Status)
	requireProblem(t, a.Call(t, http.MethodGet, "/accounts/me", nil, "Authorization", "Bearer "+id), http.StatusUnauthorized, "Unauthorized")
}

// GET /config.json tells the web app how to sign in and sign out, which other replicas its
// operations page may send tokens to (OPERATIONS_REPLICAS), and whether members pay online.
func TestConfigJSONSaysWhatTheWebAppNeeds(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	cfg := apitest.WithSignIn(apitest.WithPayments(fastBackground(app.Config{}), paytest.Start(t), "http://127.0.0.1:8080"), idp)
	cfg.OperationsReplicas = []string{"https://replica-2.library.example.org"}
	cfg.AuthLogoutIDTokenHint = true
	a := apitest.Launch(t, cfg, slogTo(t, io.Discard)).API("memory")
	var got struct {
		Auth struct {
			ClientID          string `json:"clientId"`
			LogoutIDTokenHint bool   `json:"logoutIdTokenHint"`
		} `json:"auth"`
		Replicas []string `json:"replicas"`
		Payments bool     `json:"payments"`
	}
	r := a.Get(t, "/config.json")
	require.Equal(t, http.StatusOK, r.Status)
	require.NoError(t, json.Unmarshal(r.Body, &got))
	assert.Equal(t, apitest.WebClientID, got.Auth.ClientID)
	assert.True(t, got.Auth.LogoutIDTokenHint)
	assert.Equal(t, []string{"https://replica-2.library.example.org"}, got.Replicas)
	assert.True(t, got.Payments)

	open := apitest.Launch(t, fastBackground(app.Config{}), slogTo(t, io.Discard)).API("memory")
	r = open.Get(t, "/config.json")
	require.Equal(t, http.StatusOK, r.Status)
	assert.JSONEq(t, `{"auth": null, "open": true, "replicas": [], "payments": false}`, string(r.Body))
}

// Tokens never reach the logs, good or bad; nor does the ADMIN_TOKEN used as a break-glass,
// which acts as an operator.
func TestTokensNeverLogged(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	var logs syncbuf.Buffer
	cfg := apitest.WithSignIn(fastBackground(app.Config{}), idp)
	s := apitest.Launch(t, cfg, slogTo(t, &logs))
	a := s.API("memory")
	good := idp.Token(t, "oscar")
	bad := idp.Token(t, "alice")[:40] + "tampered"
	require.Equal(t, http.StatusOK, a.Call(t, http.MethodGet, "/status", nil, "Authorization", "Bearer "+good).Status)
	requireProblem(t, a.Call(t, http.MethodGet, "/status", nil, "Authorization", "Bearer "+bad), http.StatusUnauthorized, "Unauthorized")
	require.Equal(t, http.StatusOK, a.Call(t, http.MethodGet, "/status", nil, "Authorization", "Bearer "+adminToken).Status, "the break-glass token")
	requireProblem(t, a.Call(t, http.MethodGet, "/accounts/alice", nil, "Authorization", "Bearer "+adminToken), http.StatusForbidden, "Forbidden")
	s.Stop()
	for _, secret := range []string{good, strings.Split(good, ".")[2], bad, adminToken} {
		assert.NotContains(t, logs.String(), secret)
	}
	assert.Contains(t, logs.String(), "status=401", "the refusal is logged, without its token")
}

// /metrics is not part of the API: it is served on METRICS_ADDR only.
func TestMetricsOnlyOnTheirOwnListener(t *testing.T) {
	t.Parallel()
	s := launch(t, app.Config{})
	r, _ := s.API("memory").TrySend(http.MethodGet, "/metrics", nil)
	assert.Equal(t, http.StatusNotFound, r.Status)
	resp, err := http.Get(s.Metrics + "/metrics")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// slogTo is a logger that writes every line to w, and to the test's log.
func slogTo(t *testing.T, w io.Writer) *slog.Logger {
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	return slog.New(slog.NewMultiHandler(slog.NewTextHandler(w, debug), slog.NewTextHandler(testLog(t), debug)))
}
