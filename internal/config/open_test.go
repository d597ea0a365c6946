package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/config"
)

// An open service (no AUTH_ISSUER: anyone may do anything) listens on this machine only unless
// HTTP_ADDR says otherwise; a service that signs people in listens on every interface.
func TestOpenServiceListensOnThisMachine(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"in memory, open":              {nil, "127.0.0.1:8080"},
		"AUTH=off on a database":       {map[string]string{"AUTH": "off", "DATABASE_URL": "postgres://127.0.0.1/library"}, "127.0.0.1:8080"},
		"open, HTTP_ADDR set":          {map[string]string{"HTTP_ADDR": ":9000"}, ":9000"},
		"signing in":                   {map[string]string{"AUTH_ISSUER": "https://login.example.org", "AUTH_AUDIENCE": "library", "AUTH_CLIENT_ID": "library-web"}, ":8080"},
		"signing in, HTTP_ADDR set":    {map[string]string{"AUTH_ISSUER": "https://login.example.org", "AUTH_AUDIENCE": "library", "AUTH_CLIENT_ID": "library-web", "HTTP_ADDR": "10.0.0.5:80"}, "10.0.0.5:80"},
		"open, HTTP_ADDR on this host": {map[string]string{"HTTP_ADDR": "127.0.0.1:8081"}, "127.0.0.1:8081"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := config.FromEnv(func(k string) string { return tc.env[k] })
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.HTTPAddr)
		})
	}
	cfg, err := config.Config{}.Complete()
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", cfg.HTTPAddr, "a Config made in code, open")
}

// Go's profiles show what the service does and holds: PPROF_ADDR off this machine is refused,
// naming the variable.
func TestPprofOffThisMachineIsRefused(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{":6060", "0.0.0.0:6060", "[::]:6060", "10.0.0.5:6060", "pprof.example.org:6060", "6060"} {
		cfg := config.Config{PprofAddr: addr}
		err := cfg.Check()
		if assert.Error(t, err, addr) {
			assert.Contains(t, err.Error(), "PPROF_ADDR", addr)
		}
	}
	for _, addr := range []string{"", "127.0.0.1:6060", "localhost:6060", "[::1]:6060", "127.0.0.1:0"} {
		assert.NoError(t, config.Config{PprofAddr: addr}.Check(), addr)
	}
}

// With sign-in on, the web app's client id is required: it is what tells the web app's ID
// tokens, which name it, from access tokens, and that check must never be off.
func TestSignInNeedsTheWebAppsClientID(t *testing.T) {
	t.Parallel()
	env := map[string]string{"AUTH_ISSUER": "https://login.example.org", "AUTH_AUDIENCE": "library"}
	cfg, err := config.FromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	err = cfg.Check()
	require.Error(t, err)
	require.Contains(t, err.Error(), "AUTH_CLIENT_ID is unset")
	env["AUTH_CLIENT_ID"] = "library-web"
	cfg, err = config.FromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.NoError(t, cfg.Check())
}
