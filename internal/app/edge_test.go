package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/pgtest"
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

// CATALOG_MAX_WAITS reaches GET /books. With one place, a read of a position the catalog never
// handles (a gap that the log has gone past: a position an append took and never recorded)
// waits and holds it, and another read that would wait is answered 503 NotCaughtUp at once,
// saying that the places are taken.
func TestEdgeCatalogMaxWaits(t *testing.T) {
	t.Parallel()
	database := pgtest.NewDatabase(t)
	cfg := fastBackground(app.Config{DatabaseURL: database, CatalogMaxWaits: 1, RequestTimeout: time.Minute})
	cfg.Tuning.CatalogWait = 30 * time.Second
	a := launch(t, cfg).API("postgres")
	ctx := context.Background()

	addBook(t, a, "dune")
	var gap int64
	require.NoError(t, pgtest.Connect(t, database).QueryRow(ctx,
		`SELECT nextval(pg_get_serial_sequence('events', 'position'))`).Scan(&gap))
	last := addBook(t, a, "emma")
	require.Greater(t, last.Position, gap)
	require.Equal(t, http.StatusOK, a.Get(t, fmt.Sprintf("/books?minPosition=%d", last.Position)).Status, "the catalog is past the gap")
	waitForGap := fmt.Sprintf("%s/books?minPosition=%d", a.Base, gap)

	// The holder: a read that waits, sent again whenever it ends (it may have found the place
	// taken by one of the reads below, which end after a second), until the test ends.
	holding, stopHolding := context.WithCancel(ctx)
	var held sync.WaitGroup
	defer held.Wait()
	defer stopHolding()
	held.Go(func() {
		for holding.Err() == nil {
			req, err := http.NewRequestWithContext(holding, http.MethodGet, waitForGap, nil)
			if err != nil {
				return
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}
	})

	quick := &http.Client{Timeout: time.Second} // a read that waits is no answer
	var refused problem
	eventually(t, 10*time.Second, func() bool {
		resp, err := quick.Get(waitForGap)
		if err != nil {
			return false // it waited: it held the place
		}
		defer func() { _ = resp.Body.Close() }()
		refused = problem{}
		return resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" &&
			json.NewDecoder(resp.Body).Decode(&refused) == nil
	}, "a read that would wait, while another waits, is refused at once")
	require.Equal(t, "NotCaughtUp", refused.Code)
	require.Contains(t, refused.Detail, "as many reads as this replica lets wait are waiting already")
}

// problem is a problem's code and detail.
type problem struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}
