package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/auth"
	"library/internal/testkit/syncbuf"
)

// X-Forwarded-For is ignored from a peer that is not a trusted proxy, and believed from one
// that is: the right-most entry that is not a trusted proxy is the client.
func TestXForwardedFor(t *testing.T) {
	t.Parallel()
	api := newEdgeAPI(Options{
		Limits:         Limits{Requests: Limit{N: 2, Per: window}},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32")},
	})

	t.Run("from anyone else, ignored", func(t *testing.T) {
		for i, xff := range []string{"198.51.100.1", "198.51.100.2"} {
			require.Equal(t, http.StatusOK, call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", xff).Code, i)
		}
		// A new X-Forwarded-For each time does not make a new client.
		requireTooMany(t, call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", "198.51.100.3"), "3600")
		requireTooMany(t, call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", "127.0.0.1"), "3600")
		// Nor does naming another client get that client refused.
		require.Equal(t, http.StatusOK, call(api, "GET", "/ids/a", "198.51.100.1").Code)
	})

	t.Run("from a trusted proxy, believed", func(t *testing.T) {
		client := "198.51.100.77"
		for range 2 {
			require.Equal(t, http.StatusOK, call(api, "GET", "/ids/b", "10.1.2.3", "X-Forwarded-For", client).Code)
		}
		// Over a chain of trusted proxies, and whatever the client put on the left.
		requireTooMany(t, call(api, "GET", "/ids/b", "192.0.2.7", "X-Forwarded-For", "203.0.113.66, "+client+", 10.9.9.9"), "3600")
		requireTooMany(t, call(api, "GET", "/ids/b", "10.1.2.3", "X-Forwarded-For", "203.0.113.66", "X-Forwarded-For", client), "3600")
		// Another client behind the same proxy is served; so is the proxy's own request.
		require.Equal(t, http.StatusOK, call(api, "GET", "/ids/b", "10.1.2.3", "X-Forwarded-For", "198.51.100.78").Code)
		require.Equal(t, http.StatusOK, call(api, "GET", "/ids/b", "10.1.2.3").Code)
	})
}

// With no trusted proxy (TRUSTED_PROXIES unset), X-Forwarded-For is never read: a caller who
// writes a new one on each request is still one client, its TCP peer, and can't name itself
// out of the limits.
func TestXForwardedForWithoutTrustedProxies(t *testing.T) {
	t.Parallel()
	api := newEdgeAPI(Options{Limits: Limits{Requests: Limit{N: 2, Per: window}, AuthFailures: Limit{N: 1, Per: window}}})
	require.Equal(t, http.StatusOK, call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", "198.51.100.1").Code)
	require.Equal(t, http.StatusOK, call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", "198.51.100.2").Code)
	requireTooMany(t, call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", "198.51.100.3"), "3600")
	requireTooMany(t, call(api, "GET", "/ids/a", "203.0.113.5"), "3600")

	require.Equal(t, http.StatusUnauthorized,
		call(api, "GET", "/admin/thing", "203.0.113.6", "X-Forwarded-For", "198.51.100.4", "Authorization", "Bearer guess").Code)
	requireTooMany(t, call(api, "GET", "/admin/thing", "203.0.113.6", "X-Forwarded-For", "198.51.100.5", "Authorization", "Bearer guess"), "3600")

	var got netip.Addr
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "203.0.113.7:1234"
	req.Header.Set("X-Forwarded-For", "198.51.100.1")
	clientIP(nil)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = ClientAddress(r) })).ServeHTTP(httptest.NewRecorder(), req)
	require.Equal(t, "203.0.113.7", got.String())
}

// ClientAddress is what the limits key on.
func TestClientAddress(t *testing.T) {
	t.Parallel()
	trusted := clientIP([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	for _, tc := range []struct {
		peer, xff, want string
	}{
		{"203.0.113.5", "198.51.100.1", "203.0.113.5"},                // untrusted peer: XFF ignored
		{"10.0.0.1", "198.51.100.1", "198.51.100.1"},                  // trusted: believed
		{"10.0.0.1", "198.51.100.1, 10.0.0.2", "198.51.100.1"},        // past trusted hops
		{"10.0.0.1", "1.2.3.4, 198.51.100.1", "198.51.100.1"},         // the right-most untrusted
		{"10.0.0.1", "", "10.0.0.1"},                                  // nothing forwarded: the proxy
		{"10.0.0.1", "not-an-ip", "10.0.0.1"},                         // nothing usable: the proxy
		{"::ffff:203.0.113.5", "198.51.100.1", "203.0.113.5"},         // mapped IPv4 is IPv4
		{"10.0.0.1", "::ffff:198.51.100.1", "198.51.100.1"},           // in the header too
		{"2001:db8::1", "198.51.100.1", "2001:db8::1"},                // IPv6 peer
		{"10.0.0.1", "2001:db8::5, 10.0.0.3", "2001:db8::5"},          // IPv6 client
		{"203.0.113.5", "10.0.0.1", "203.0.113.5"},                    // naming a proxy changes nothing
		{"10.0.0.1", "198.51.100.1, ::ffff:10.0.0.9", "198.51.100.1"}, // a mapped proxy is a proxy
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = net.JoinHostPort(tc.peer, "1234")
		if tc.xff != "" {
			req.Header.Set("X-Forwarded-For", tc.xff)
		}
		var got netip.Addr
		trusted(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = ClientAddress(r) })).ServeHTTP(httptest.NewRecorder(), req)
		assert.Equal(t, tc.want, got.String(), "peer %s, X-Forwarded-For %q", tc.peer, tc.xff)
	}
}

// keyModule answers GET /key with the request's ClientKey, for a route that reads tokens.
type keyModule struct{}

func (keyModule) Routes(r chi.Router) {
	r.Get("/key", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, r, http.StatusOK, map[string]string{"key": ClientKey(r)})
	})
}

// ClientKey, what a handler bounds per client by (the catalog's waiting reads), is the key the
// limits count by: a person signed in is one client from every address, and two people at one
// address are two; anyone else is their address, an IPv6 one by its /64, and a forwarded one
// only from a trusted proxy.
func TestClientKey(t *testing.T) {
	t.Parallel()
	p := startProvider(t)
	api := New(Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Guard:  p.guard,
		Rules: []auth.Rule{{Method: http.MethodGet, Pattern: "/key", Anonymous: auth.Allow, Member: auth.Allow, Librarian: auth.Allow,
			Operator: auth.Allow, WhenOpen: auth.Allow, Narrowed: "the key is the caller's"}},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
	}, keyModule{})
	key := func(addr string, headers ...string) string {
		rec := call(api, "GET", "/key", addr, headers...)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var got struct{ Key string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
		return got.Key
	}
	alice, bob := p.bearer(t, "alice"), p.bearer(t, "bob")
	require.Equal(t, key("192.0.2.1", "Authorization", alice), key("198.51.100.1", "Authorization", alice), "one person, two addresses")
	require.NotEqual(t, key("192.0.2.1", "Authorization", alice), key("192.0.2.1", "Authorization", bob), "two people, one address")
	require.NotEqual(t, key("192.0.2.1", "Authorization", alice), key("192.0.2.1"), "a person and their address")
	require.NotEqual(t, key("192.0.2.1"), key("192.0.2.2"))
	require.Equal(t, key("2001:db8:1:2::1"), key("2001:db8:1:2::ffff"), "one /64")
	require.Equal(t, key("192.0.2.1"), key("10.1.2.3", "X-Forwarded-For", "192.0.2.1"), "forwarded by a trusted proxy")
	require.Equal(t, key("203.0.113.5"), key("203.0.113.5", "X-Forwarded-For", "192.0.2.1"), "forwarded by anyone else: ignored")
}

// logLines keeps what a logger writes, as JSON lines.
type logLines struct{ syncbuf.Buffer }

// warnings are the lines at WARN that name TRUSTED_PROXIES, and the whole log.
func (l *logLines) warnings(t *testing.T) ([]map[string]any, string) {
	t.Helper()
	all := l.String()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(all), "\n") {
		if line == "" {
			continue
		}
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &entry), line)
		if entry["level"] == "WARN" && strings.Contains(entry["msg"].(string), "TRUSTED_PROXIES") {
			out = append(out, entry)
		}
	}
	return out, all
}

// A request that carries X-Forwarded-For or Forwarded from a peer that TRUSTED_PROXIES does
// not list is logged as a warning, once: naming TRUSTED_PROXIES and the peer's network, never
// the forwarded addresses nor the peer's own. From a trusted proxy, or without those headers,
// nothing is logged.
func TestUntrustedProxyWarning(t *testing.T) {
	t.Parallel()
	var lines logLines
	api := New(Options{
		Logger:         slog.New(slog.NewJSONHandler(&lines, nil)),
		Rules:          append(append([]auth.Rule(nil), testRoutes...), edgeRules...),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
	}, testModule{}, edgeModule{})

	call(api, "GET", "/ids/a", "10.1.2.3", "X-Forwarded-For", "198.51.100.1")
	call(api, "GET", "/ids/a", "10.1.2.3", "Forwarded", "for=198.51.100.1")
	call(api, "GET", "/ids/a", "203.0.113.5")
	warned, _ := lines.warnings(t)
	require.Empty(t, warned, "a trusted proxy, or no forwarding header")

	call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", "198.51.100.1")
	call(api, "GET", "/ids/a", "203.0.113.5", "X-Forwarded-For", "198.51.100.2")
	call(api, "GET", "/ids/a", "192.0.2.9", "Forwarded", "for=198.51.100.3")
	warned, all := lines.warnings(t)
	require.Len(t, warned, 1, "once, however many requests: %s", all)
	require.Equal(t, "203.0.113.0/24", warned[0]["peer_network"])
	for _, secret := range []string{"198.51.100", "203.0.113.5"} {
		require.NotContains(t, all, secret, "the log names no client's address")
	}
}

// The warning comes again once an hour has passed since the last, not before; it names an
// IPv6 peer by its /64, and says when RATE_LIMIT_EXEMPT_LOOPBACK makes an untrusted loopback
// proxy's clients uncounted.
func TestUntrustedProxyWarningHourly(t *testing.T) {
	t.Parallel()
	var lines logLines
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	u := newUntrustedProxy(slog.New(slog.NewJSONHandler(&lines, nil)), nil, true, func() time.Time { return now })
	h := u.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	send := func(peer string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = peer
		req.Header.Set("X-Forwarded-For", "198.51.100.1")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	send("[2001:db8:1:2::5]:1234")
	now = now.Add(59 * time.Minute)
	send("127.0.0.6:1234")
	warned, _ := lines.warnings(t)
	require.Len(t, warned, 1)
	require.Equal(t, "2001:db8:1:2::/64", warned[0]["peer_network"])

	now = now.Add(time.Minute)
	send("127.0.0.6:1234")
	send("127.0.0.6:1234")
	warned, _ = lines.warnings(t)
	require.Len(t, warned, 2)
	require.Equal(t, "127.0.0.0/24", warned[1]["peer_network"])
	require.Contains(t, warned[1]["msg"], "RATE_LIMIT_EXEMPT_LOOPBACK")
}
