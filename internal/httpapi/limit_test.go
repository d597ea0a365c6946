package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"
	"github.com/stretchr/testify/require"

	"library/internal/auth"
	"library/internal/devidp"
	"library/internal/errs"
)

// The limits' tests count against windows of an hour, so that no window passes during a test:
// what they check does not depend on the clock.
const window = time.Hour

// edgeModule mounts a route for signed-in people and the account-data routes, beside
// testModule's.
type edgeModule struct{}

func (edgeModule) Routes(r chi.Router) {
	ok := func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, r, http.StatusOK, map[string]string{"subject": auth.AccessFrom(r.Context()).Caller.Subject})
	}
	r.Get("/whoami", ok)
	r.Get("/admin/thing", ok)
	r.Get("/accounts/{memberId}/export", ok)
	r.Post("/accounts/{memberId}/erasure", ok)
}

var edgeRules = append(anyoneMay("GET /accounts/{memberId}/export", "POST /accounts/{memberId}/erasure"),
	auth.Rule{Method: http.MethodGet, Pattern: "/whoami", Member: auth.Allow, Librarian: auth.Allow, Operator: auth.Allow, WhenOpen: auth.Allow},
	auth.Rule{Method: http.MethodGet, Pattern: "/admin/thing", Operator: auth.Allow})

func newEdgeAPI(opts Options) http.Handler {
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	opts.Rules = append(append([]auth.Rule(nil), testRoutes...), edgeRules...)
	return New(opts, testModule{}, edgeModule{})
}

// call sends a request from addr (a TCP peer, "192.0.2.1") with the headers given in pairs.
func call(api http.Handler, method, path, addr string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	req.RemoteAddr = net.JoinHostPort(addr, "40000")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, req)
	return rec
}

// requireTooMany checks a 429: a TooManyRequests problem, with Retry-After in seconds.
func requireTooMany(t *testing.T, rec *httptest.ResponseRecorder, retryAfter string) {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, rec.Code, rec.Body.String())
	p := decodeProblem(t, rec)
	require.Equal(t, errs.TooManyRequests, p.Code)
	require.Equal(t, "urn:library:problem:TooManyRequests", p.Type)
	require.Equal(t, retryAfter, rec.Header().Get("Retry-After"))
	requireSafeHeaders(t, rec)
}

func requireSafeHeaders(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
}

// A client over RATE_LIMIT gets 429 with Retry-After on every path, routed or not, while
// other clients are served; an IPv6 client counts by its /64.
func TestRateLimitPerAddress(t *testing.T) {
	t.Parallel()
	api := newEdgeAPI(Options{Limits: Limits{Requests: Limit{N: 3, Per: window}}})
	for range 3 {
		require.Equal(t, http.StatusOK, call(api, "GET", "/ids/alice", "192.0.2.1").Code)
	}
	requireTooMany(t, call(api, "GET", "/ids/alice", "192.0.2.1"), "3600")
	requireTooMany(t, call(api, "GET", "/no/such/path", "192.0.2.1"), "3600")
	requireTooMany(t, call(api, "DELETE", "/ids/alice", "192.0.2.1"), "3600")
	requireTooMany(t, call(api, "GET", "/healthz", "192.0.2.1"), "3600")
	require.Equal(t, http.StatusOK, call(api, "GET", "/ids/alice", "192.0.2.2").Code, "another address is served")

	for range 3 {
		require.Equal(t, http.StatusOK, call(api, "GET", "/ids/bob", "2001:db8:1:2::1").Code)
	}
	requireTooMany(t, call(api, "GET", "/ids/bob", "2001:db8:1:2::ffff"), "3600") // the same /64
	require.Equal(t, http.StatusOK, call(api, "GET", "/ids/bob", "2001:db8:1:3::1").Code, "another /64")
}

// Loopback is counted like any other address unless ExemptLoopback (RATE_LIMIT_EXEMPT_LOOPBACK)
// says otherwise: a proxy on this machine that is not trusted (a sidecar forwards from
// 127.0.0.6) would otherwise turn the limit off for all its clients. With the exemption on, a
// loopback proxy that is trusted still has its clients counted, by their forwarded addresses.
func TestRateLimitLoopback(t *testing.T) {
	t.Parallel()
	limits := Limits{Requests: Limit{N: 3, Per: window}}
	api := newEdgeAPI(Options{Limits: limits})
	for _, addr := range []string{"127.0.0.1", "127.0.0.6", "::1"} {
		for range 3 {
			require.Equal(t, http.StatusOK, call(api, "GET", "/ids/local", addr, "X-Forwarded-For", "198.51.100.1").Code, addr)
		}
		requireTooMany(t, call(api, "GET", "/ids/local", addr, "X-Forwarded-For", "198.51.100.2"), "3600")
	}

	limits.ExemptLoopback = true
	exempt := newEdgeAPI(Options{Limits: limits})
	for range 10 {
		require.Equal(t, http.StatusOK, call(exempt, "GET", "/ids/local", "127.0.0.1").Code, "loopback is not counted")
		require.Equal(t, http.StatusOK, call(exempt, "GET", "/ids/local", "::1").Code, "loopback is not counted")
	}
	for range 3 {
		require.Equal(t, http.StatusOK, call(exempt, "GET", "/ids/local", "192.0.2.1").Code)
	}
	requireTooMany(t, call(exempt, "GET", "/ids/local", "192.0.2.1"), "3600")

	behindTrusted := newEdgeAPI(Options{Limits: limits, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	for range 3 {
		require.Equal(t, http.StatusOK, call(behindTrusted, "GET", "/ids/local", "127.0.0.6", "X-Forwarded-For", "198.51.100.1").Code)
	}
	requireTooMany(t, call(behindTrusted, "GET", "/ids/local", "127.0.0.6", "X-Forwarded-For", "198.51.100.1"), "3600")
	require.Equal(t, http.StatusOK, call(behindTrusted, "GET", "/ids/local", "127.0.0.6").Code, "the proxy's own request: loopback")
}

// provider is a real OpenID provider (package devidp) on loopback, and a Guard that trusts it.
type provider struct {
	*devidp.Provider
	issuer string
	guard  *auth.Guard
}

const adminToken = "an-admin-token-long-enough-to-be-accepted"

func startProvider(t *testing.T) provider {
	t.Helper()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	issuer := "http://" + ln.Addr().String()
	p, err := devidp.New(devidp.Options{Issuer: issuer, Audience: "library", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	server := &httptest.Server{Listener: ln, Config: &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 5 * time.Second}}
	server.Start()
	t.Cleanup(server.Close)
	v := auth.NewVerifier(auth.VerifierConfig{Issuer: issuer, Audience: "library"})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v.Start(ctx)
	require.Eventually(t, func() bool { return v.Ready() == nil }, 10*time.Second, 10*time.Millisecond, "discovery read")
	return provider{Provider: p, issuer: issuer, guard: auth.NewGuard(v, adminToken)}
}

// bearer is a valid token's Authorization for subject.
func (p provider) bearer(t *testing.T, subject string) string {
	t.Helper()
	token, err := p.Sign(map[string]any{"iss": p.issuer, "aud": "library", "sub": subject,
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(), "roles": []string{}})
	require.NoError(t, err)
	return "Bearer " + token
}

// A signed-in caller counts by who they are, from whatever address; another person at the
// same address, and the address's anonymous requests, count apart.
func TestRateLimitPerSubject(t *testing.T) {
	t.Parallel()
	p := startProvider(t)
	api := newEdgeAPI(Options{Guard: p.guard, Limits: Limits{Requests: Limit{N: 3, Per: window}}})
	alice, bob := p.bearer(t, "alice"), p.bearer(t, "bob")
	for _, addr := range []string{"192.0.2.1", "192.0.2.2", "198.51.100.1"} {
		rec := call(api, "GET", "/whoami", addr, "Authorization", alice)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Contains(t, rec.Body.String(), `"subject":"alice"`)
	}
	requireTooMany(t, call(api, "GET", "/whoami", "203.0.113.9", "Authorization", alice), "3600")
	require.Equal(t, http.StatusOK, call(api, "GET", "/whoami", "192.0.2.1", "Authorization", bob).Code, "another person, same address")
	require.Equal(t, http.StatusOK, call(api, "GET", "/ids/x", "192.0.2.1").Code, "the address's anonymous requests")
}

// Refused tokens count against their address: once over, each further refused token from it
// is answered 429 instead of 401, until the window passes; but every token is still checked,
// and a good one, or ADMIN_TOKEN, is served as ever: one client's failures (or a proxy's many
// clients', behind one address) never lock another out. A request without a token, and other
// addresses, are served. A wrong ADMIN_TOKEN is a refused token, with sign-in on or off.
func TestAuthFailureLimit(t *testing.T) {
	t.Parallel()
	limits := Limits{AuthFailures: Limit{N: 3, Per: window}}

	t.Run("sign-in on", func(t *testing.T) {
		t.Parallel()
		p := startProvider(t)
		api := newEdgeAPI(Options{Guard: p.guard, Limits: limits})
		good := p.bearer(t, "alice")
		refused := []string{"Bearer not-a-jwt", good + "x", "Bearer wrong-" + adminToken}
		for _, token := range refused {
			rec := call(api, "GET", "/whoami", "192.0.2.1", "Authorization", token)
			require.Equal(t, http.StatusUnauthorized, rec.Code, rec.Body.String())
			require.Contains(t, rec.Header().Get("WWW-Authenticate"), "invalid_token")
		}
		requireTooMany(t, call(api, "GET", "/whoami", "192.0.2.1", "Authorization", "Bearer another-guess"), "3600")
		for range 3 { // checked, and served, however often
			rec := call(api, "GET", "/whoami", "192.0.2.1", "Authorization", good)
			require.Equal(t, http.StatusOK, rec.Code, "a good token from an address over its refused tokens: %s", rec.Body.String())
			require.Contains(t, rec.Body.String(), `"subject":"alice"`)
			require.Equal(t, http.StatusOK, call(api, "GET", "/whoami", "192.0.2.1", "Authorization", p.bearer(t, "libby")).Code,
				"another person's good token from that address")
			require.Equal(t, http.StatusOK, call(api, "GET", "/admin/thing", "192.0.2.1", "Authorization", "Bearer "+adminToken).Code,
				"ADMIN_TOKEN from that address")
		}
		requireTooMany(t, call(api, "GET", "/whoami", "192.0.2.1", "Authorization", good+"x"), "3600")

		require.Equal(t, http.StatusUnauthorized, call(api, "GET", "/whoami", "192.0.2.1").Code, "no token: not an attempt")
		require.Equal(t, http.StatusOK, call(api, "GET", "/ids/x", "192.0.2.1", "Authorization", "Bearer unread").Code,
			"a public route reads no token")
		require.Equal(t, http.StatusOK, call(api, "GET", "/whoami", "192.0.2.2", "Authorization", good).Code, "another address")
		require.Equal(t, http.StatusUnauthorized, call(api, "GET", "/whoami", "192.0.2.2", "Authorization", "Bearer x").Code)
	})

	t.Run("sign-in off", func(t *testing.T) {
		t.Parallel()
		api := newEdgeAPI(Options{Guard: auth.NewGuard(nil, adminToken), Limits: limits})
		for range 3 {
			require.Equal(t, http.StatusUnauthorized, call(api, "GET", "/admin/thing", "192.0.2.1", "Authorization", "Bearer guess").Code)
		}
		requireTooMany(t, call(api, "GET", "/admin/thing", "192.0.2.1", "Authorization", "Bearer guess"), "3600")
		require.Equal(t, http.StatusOK, call(api, "GET", "/admin/thing", "192.0.2.1", "Authorization", "Bearer "+adminToken).Code,
			"ADMIN_TOKEN from an address over its refused tokens")
		require.Equal(t, http.StatusOK, call(api, "GET", "/admin/thing", "192.0.2.2", "Authorization", "Bearer "+adminToken).Code)
		require.Equal(t, http.StatusOK, call(api, "GET", "/whoami", "192.0.2.1").Code, "no token: served")
	})
}

// Exports and erasures are limited per client and route, once allowed; HEAD is GET.
func TestAccountDataLimit(t *testing.T) {
	t.Parallel()
	api := newEdgeAPI(Options{Limits: Limits{AccountData: Limit{N: 2, Per: time.Minute}}})
	require.Equal(t, http.StatusOK, call(api, "GET", "/accounts/alice/export", "192.0.2.1").Code)
	require.Equal(t, http.StatusOK, call(api, "HEAD", "/accounts/bob/export", "192.0.2.1").Code)
	requireTooMany(t, call(api, "GET", "/accounts/carol/export", "192.0.2.1"), "60")
	require.Equal(t, http.StatusOK, call(api, "POST", "/accounts/alice/erasure", "192.0.2.1").Code, "each route apart")
	require.Equal(t, http.StatusOK, call(api, "GET", "/accounts/alice/export", "192.0.2.2").Code, "another client")
	for range 5 {
		require.Equal(t, http.StatusOK, call(api, "GET", "/ids/alice", "192.0.2.1").Code, "other routes")
	}
}

// Every JSON answer, a success or a problem, is nosniff and no-store; so is one written
// without WriteJSON.
func TestJSONAnswersHeaders(t *testing.T) {
	t.Parallel()
	api := newEdgeAPI(Options{Limits: Limits{Requests: Limit{N: 1, Per: window}}})
	for i, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/ids/alice", 200},
		{"GET", "/healthz", 200},
		{"GET", "/ids/-bad", 400},
		{"GET", "/coded/NotFound", 404},
		{"GET", "/nowhere", 404},
		{"DELETE", "/ids/alice", 405},
		{"GET", "/panic", 500},
		{"GET", "/coded/Unavailable", 503},
	} {
		rec := call(api, tc.method, tc.path, "2001:db8:"+strconv.Itoa(i)+"::1") // a client each

		require.Equal(t, tc.status, rec.Code, tc.path)
		require.Contains(t, rec.Header().Get("Content-Type"), "json", tc.path)
		requireSafeHeaders(t, rec)
	}
	require.Equal(t, http.StatusOK, call(api, "GET", "/ids/alice", "192.0.2.1").Code)
	requireTooMany(t, call(api, "GET", "/ids/alice", "192.0.2.1"), "3600")

	raw := New(Options{Rules: anyoneMay("GET /raw")}, rawModule{})
	rec := httptest.NewRecorder()
	raw.ServeHTTP(rec, httptest.NewRequest("GET", "/raw", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	requireSafeHeaders(t, rec)
}

type rawModule struct{}

func (rawModule) Routes(r chi.Router) {
	r.Get("/raw", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	})
}

// The limits are off in the zero Options: the test suites' routers are not limited.
func TestNoLimitsByDefault(t *testing.T) {
	t.Parallel()
	api := newEdgeAPI(Options{})
	for range 50 {
		require.Equal(t, http.StatusOK, call(api, "GET", "/accounts/alice/export", "192.0.2.1").Code)
		require.Equal(t, http.StatusUnauthorized, call(api, "GET", "/admin/thing", "192.0.2.1", "Authorization", "Bearer guess").Code)
	}
}

// A client's address key is its address as httprate canonicalizes it, an IPv6 one by its /64.
func TestAddressKeyIsTheCanonicalAddress(t *testing.T) {
	t.Parallel()
	for _, remote := range []string{"192.0.2.7:40000", "127.0.0.1:1", "[2001:db8:1:2:3:4:5:6]:443", "[::ffff:192.0.2.7]:80",
		"[fe80::1%eth0]:80", "[::1]:8080", "not an address"} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		require.Equal(t, "address\x00"+httprate.CanonicalizeIP(ClientAddress(r).WithZone("").String()), addressKey(r), remote)
	}
}
