package app_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/app"
)

// The limits at the edge: RATE_LIMIT, AUTH_FAILURE_LIMIT, ACCOUNT_DATA_LIMIT and
// CATALOG_MAX_WAITS are whole numbers, 0 (no limit) or more; TRUSTED_PROXIES a list of
// addresses and prefixes. Anything else is refused, naming the variable.
func TestConfigEdgeLimits(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	cfg, err := app.ConfigFromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, []int{100, 10, 5, 64}, []int{cfg.RateLimit, cfg.AuthFailureLimit, cfg.AccountDataLimit, cfg.CatalogMaxWaits}, "defaults")
	require.Empty(t, cfg.TrustedProxies, "no proxy is trusted by default")

	cfg, err = app.ConfigFromEnv(env(map[string]string{
		"RATE_LIMIT": "0", "AUTH_FAILURE_LIMIT": "3", "ACCOUNT_DATA_LIMIT": "0", "CATALOG_MAX_WAITS": "8",
		"TRUSTED_PROXIES": " 10.1.2.3/8, 192.0.2.7 ,2001:db8::/32,::ffff:172.16.0.0/108, ::1",
	}))
	require.NoError(t, err)
	require.Equal(t, []int{0, 3, 0, 8}, []int{cfg.RateLimit, cfg.AuthFailureLimit, cfg.AccountDataLimit, cfg.CatalogMaxWaits})
	require.Equal(t, []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("2001:db8::/32"),
		netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("::1/128"),
	}, cfg.TrustedProxies)

	for name, values := range map[string][]string{
		"RATE_LIMIT":         {"-1", "many", "1.5", "1e3"},
		"AUTH_FAILURE_LIMIT": {"-1", "ten"},
		"ACCOUNT_DATA_LIMIT": {"-5", "5/min"},
		"CATALOG_MAX_WAITS":  {"-1", "lots", " 64"},
		"TRUSTED_PROXIES":    {"10.0.0.0/33", "proxy.example.org", "10.0.0.1:8080", "fe80::1%eth0", "::ffff:0:0/80", "10.0.0.1;10.0.0.2"},
	} {
		for _, v := range values {
			_, err := app.ConfigFromEnv(env(map[string]string{name: v}))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}

// Through the service's own server: a client over RATE_LIMIT is answered 429 with
// Retry-After, as the OpenAPI document says, while another is served; behind a trusted proxy
// (here, loopback) each forwarded address is a client of its own.
func TestEdgeRateLimit(t *testing.T) {
	t.Parallel()
	a := &api{Base: startService(t, app.Config{
		RateLimit:      2,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
	})}
	var limited response
	for i := 0; i < 200 && limited.Status == 0; i++ { // 2 a second: one of these is over
		if r := a.Send(t, http.MethodGet, "/healthz", nil, "X-Forwarded-For", "198.51.100.1"); r.Status != http.StatusOK {
			limited = r
		}
	}
	requireProblem(t, limited, http.StatusTooManyRequests, "TooManyRequests")
	require.Equal(t, "1", limited.Header.Get("Retry-After"))
	require.Equal(t, http.StatusOK, a.Send(t, http.MethodGet, "/healthz", nil, "X-Forwarded-For", "198.51.100.2").Status, "another client")
}

// Refused tokens from one address: once over AUTH_FAILURE_LIMIT, ADMIN_TOKEN itself is
// refused from it (429, for the rest of the minute), and taken from another address. (With
// sign-in off, only the admin actions read a token.)
func TestEdgeAuthFailureLimit(t *testing.T) {
	t.Parallel()
	a := &api{Base: startService(t, app.Config{
		AuthFailureLimit: 2, AdminToken: adminToken,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
	})}
	from := func(addr string) []string { return []string{"X-Forwarded-For", addr} }
	for range 2 {
		requireProblem(t, a.Send(t, http.MethodGet, "/admin/processors/catalog/parked", nil, append(from("198.51.100.9"), "Authorization", "Bearer guess")...),
			http.StatusUnauthorized, "Unauthorized")
	}
	r := a.Send(t, http.MethodGet, "/admin/processors/catalog/parked", nil, append(from("198.51.100.9"), "Authorization", "Bearer "+adminToken)...)
	requireProblem(t, r, http.StatusTooManyRequests, "TooManyRequests")
	require.Equal(t, "60", r.Header.Get("Retry-After"))
	require.Equal(t, http.StatusOK, a.Send(t, http.MethodGet, "/admin/processors/catalog/parked", nil, append(from("198.51.100.10"), "Authorization", "Bearer "+adminToken)...).Status)
}

// A request's line and headers over MaxHeaderBytes (64 KiB, and net/http's 4 KiB of slack)
// are refused 431, by the API's server and the metrics' server; a large one under it is served.
func TestMaxHeaderBytes(t *testing.T) {
	t.Parallel()
	s := launch(t, app.Config{})
	for _, url := range []string{s.Base + "/healthz", s.Metrics + "/metrics"} {
		for _, tc := range []struct {
			size   int
			status int
		}{
			{60 << 10, http.StatusOK},
			{app.MaxHeaderBytes + 4<<10 + 1, http.StatusRequestHeaderFieldsTooLarge},
			{1 << 20, http.StatusRequestHeaderFieldsTooLarge},
		} {
			req, err := http.NewRequest(http.MethodGet, url, nil)
			require.NoError(t, err)
			req.Header.Set("X-Padding", strings.Repeat("a", tc.size))
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err, "%s with %d bytes of header", url, tc.size)
			_ = resp.Body.Close()
			require.Equal(t, tc.status, resp.StatusCode, "%s with %d bytes of header", url, tc.size)
		}
	}
}
