package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/auth"
)

// logLines keeps what a logger writes, as JSON lines.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// warnings are the lines at WARN that name TRUSTED_PROXIES, and the whole log.
func (l *logLines) warnings(t *testing.T) ([]map[string]any, string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &entry), line)
		if entry["level"] == "WARN" && strings.Contains(entry["msg"].(string), "TRUSTED_PROXIES") {
			out = append(out, entry)
		}
	}
	return out, l.buf.String()
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
