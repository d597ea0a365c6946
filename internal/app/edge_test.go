package app_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/app"
)

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

// Refused tokens from one address, through a proxy that is not trusted (so every client has
// its address): once over AUTH_FAILURE_LIMIT, the next wrong token is answered 429 (for the
// rest of the minute), but ADMIN_TOKEN, from that address, is still checked and served; so is
// it from an address of its own. (With sign-in off, only the admin actions read a token.)
func TestEdgeAuthFailureLimit(t *testing.T) {
	t.Parallel()
	a := &api{Base: startService(t, app.Config{AuthFailureLimit: 2, AdminToken: adminToken})}
	const parked = "/admin/processors/catalog/parked"
	guess := []string{"X-Forwarded-For", "198.51.100.9", "Authorization", "Bearer guess"}
	for range 2 {
		requireProblem(t, a.Send(t, http.MethodGet, parked, nil, guess...), http.StatusUnauthorized, "Unauthorized")
	}
	r := a.Send(t, http.MethodGet, parked, nil, guess...)
	requireProblem(t, r, http.StatusTooManyRequests, "TooManyRequests")
	require.Equal(t, "60", r.Header.Get("Retry-After"))
	r = a.Send(t, http.MethodGet, parked, nil, "X-Forwarded-For", "198.51.100.10", "Authorization", "Bearer "+adminToken)
	require.Equal(t, http.StatusOK, r.Status, "ADMIN_TOKEN through the same proxy: %s", string(r.Body))
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
