package app_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/config"
	"library/internal/testkit/syncbuf"
)

// Settings that would leave the service less safe than it looks are refused at start, each
// naming its variable: an open service on a real database that nobody chose to open, a
// provider without an audience, over plain http elsewhere than this machine, or whose audience
// is the web app's client id (whose ID tokens would pass for access tokens), a short
// ADMIN_TOKEN, and an AUTH value that means nothing.
func TestUnsafeSignInSettingsAreRefused(t *testing.T) {
	t.Parallel()
	const db = "postgres://library@127.0.0.1:1/library"
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"a database without a provider":  {map[string]string{"DATABASE_URL": db}, "AUTH_ISSUER"},
		"a provider without an audience": {map[string]string{"AUTH_ISSUER": "https://login.example.org"}, "AUTH_AUDIENCE"},
		"a provider over http":           {map[string]string{"AUTH_ISSUER": "http://login.example.org", "AUTH_AUDIENCE": "library", "AUTH_CLIENT_ID": "library-web"}, "AUTH_ISSUER must be an https URL"},
		"both AUTH=off and a provider":   {map[string]string{"AUTH": "off", "AUTH_ISSUER": "https://login.example.org", "AUTH_AUDIENCE": "library"}, "AUTH=off and AUTH_ISSUER"},
		"a short ADMIN_TOKEN":            {map[string]string{"ADMIN_TOKEN": "let-me-in"}, "ADMIN_TOKEN must be at least 32 characters"},
		"the web app's client id as the audience": {map[string]string{"AUTH_ISSUER": "https://login.example.org", "AUTH_AUDIENCE": "library",
			"AUTH_CLIENT_ID": "library"}, "AUTH_CLIENT_ID is AUTH_AUDIENCE"},
		"AUTH that is neither unset nor off": {map[string]string{"AUTH": "none"}, "AUTH must be unset, or off"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := config.FromEnv(func(k string) string { return tc.env[k] })
			if err == nil {
				cfg.HTTPAddr = "127.0.0.1:0"
				_, err = app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "let-me-in", "never the secret itself")
		})
	}
}

// What may run: in memory without a provider (open, said loudly), AUTH=off on a database, and
// a provider on this machine over http (the demo's).
func TestSafeSignInSettingsStart(t *testing.T) {
	t.Parallel()
	for name, env := range map[string]map[string]string{
		"in memory, open":            {},
		"a provider on this machine": {"AUTH_ISSUER": "http://127.0.0.1:9096", "AUTH_AUDIENCE": "library", "AUTH_CLIENT_ID": "library-web"},
		"a provider over https":      {"AUTH_ISSUER": "https://login.example.org/realms/library", "AUTH_AUDIENCE": "library", "AUTH_CLIENT_ID": "library-web"},
		"a long enough ADMIN_TOKEN":  {"ADMIN_TOKEN": strings.Repeat("k", 32)},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := config.FromEnv(func(k string) string { return env[k] })
			require.NoError(t, err)
			cfg.HTTPAddr = "127.0.0.1:0"
			a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			require.NoError(t, a.Run(ctx))
		})
	}
}

// With sign-in off the service says so at start, loudly, and that it serves this machine only.
func TestOpenServiceSaysSo(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	_, stop := runServiceLogging(t, app.Config{}, logger)
	stop()
	assert.Contains(t, logs.String(), "level=WARN msg=\"no sign-in: in memory without AUTH_ISSUER, anyone")
	assert.Contains(t, logs.String(), "msg=\"no sign-in: serving this machine only (127.0.0.1")
}

// Go's profiles off this machine are refused at start, naming PPROF_ADDR.
func TestPprofOffThisMachineIsRefused(t *testing.T) {
	t.Parallel()
	cfg, err := config.FromEnv(func(k string) string { return map[string]string{"PPROF_ADDR": ":6060"}[k] })
	require.NoError(t, err)
	cfg.HTTPAddr = "127.0.0.1:0"
	_, err = app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.ErrorContains(t, err, "PPROF_ADDR")
}
