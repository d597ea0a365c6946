package httpapi

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

// ClientAddress is the address a request came from: the TCP peer, or, when the peer is one of
// Options.TrustedProxies, the right-most X-Forwarded-For entry that is not itself a trusted
// proxy (the one the nearest untrusted hop was seen at). X-Forwarded-For from anyone else is
// ignored. When a trusted proxy forwarded no usable entry, the proxy is the address.
func ClientAddress(r *http.Request) netip.Addr {
	if ip := middleware.GetClientIPAddr(r.Context()); ip.IsValid() {
		return ip
	}
	if ip, ok := remoteAddress(r.RemoteAddr); ok {
		return ip // what chi's middleware.ClientIPFromRemoteAddr would have put in the context
	}
	return peerAddress(r)
}

// remoteAddress reads RemoteAddr as chi's middleware.ClientIPFromRemoteAddr does.
func remoteAddress(remoteAddr string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr // a bare address, as tests may give
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// peerAddress is the request's TCP peer, IPv4 as IPv4; invalid when RemoteAddr is not one.
func peerAddress(r *http.Request) netip.Addr {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap()
	}
	ip, _ := netip.ParseAddr(r.RemoteAddr)
	return ip.Unmap()
}

// clientIP resolves ClientAddress once, with chi's middleware, from X-Forwarded-For when the
// peer is a trusted proxy. Without trusted proxies the address is the TCP peer's, which
// ClientAddress reads from the request itself when asked: a context of its own for every
// request would cost three allocations for nothing.
func clientIP(trusted []netip.Prefix) func(http.Handler) http.Handler {
	prefixes := trustedPrefixes(trusted)
	if len(prefixes) == 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	names := make([]string, len(prefixes))
	for i, p := range prefixes {
		names[i] = p.String()
	}
	return middleware.ClientIPFromXFF(names...)
}

// trustedPrefixes are the valid prefixes of trusted, masked.
func trustedPrefixes(trusted []netip.Prefix) []netip.Prefix {
	var prefixes []netip.Prefix
	for _, p := range trusted {
		if p.IsValid() {
			prefixes = append(prefixes, p.Masked())
		}
	}
	return prefixes
}

// untrustedProxyWarningEvery is how often, at most, untrustedProxy logs its warning.
const untrustedProxyWarningEvery = time.Hour

// untrustedProxy warns that the service sits behind a proxy it does not trust: a request that
// carries X-Forwarded-For or Forwarded from a TCP peer that is not one of the trusted proxies.
// Then every client of that proxy counts, for the limits, as the proxy's address: they share
// one RATE_LIMIT and one AUTH_FAILURE_LIMIT. The service can't tell at start; it logs the first
// such request of the process, and then at most once every every.
//
// The warning names the peer by its network (its /24, or /64 for IPv6), which is what
// TRUSTED_PROXIES wants; never the forwarded addresses, nor the peer's own, which is a
// client's when there is no proxy and the client wrote the header itself.
type untrustedProxy struct {
	logger         *slog.Logger
	trusted        []netip.Prefix
	exemptLoopback bool // RATE_LIMIT_EXEMPT_LOOPBACK: a loopback proxy's clients are not counted at all
	every          time.Duration
	now            func() time.Time
	next           atomic.Int64 // Unix nanoseconds before which it does not warn again; 0 at first
}

func newUntrustedProxy(logger *slog.Logger, trusted []netip.Prefix, exemptLoopback bool, now func() time.Time) *untrustedProxy {
	return &untrustedProxy{logger: logger, trusted: trustedPrefixes(trusted), exemptLoopback: exemptLoopback,
		every: untrustedProxyWarningEvery, now: now}
}

// middleware looks at every request, and warns when one came through an untrusted proxy.
func (u *untrustedProxy) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("Forwarded") != "" {
			u.seen(r)
		}
		next.ServeHTTP(w, r)
	})
}

// seen warns of r's peer, unless it is trusted or a warning was logged too recently.
func (u *untrustedProxy) seen(r *http.Request) {
	peer := peerAddress(r)
	if !peer.IsValid() || u.isTrusted(peer) {
		return
	}
	now := u.now().UnixNano()
	next := u.next.Load()
	if now < next || !u.next.CompareAndSwap(next, now+u.every.Nanoseconds()) {
		return
	}
	bits := 24
	if peer.Is6() {
		bits = 64
	}
	network, _ := peer.Prefix(bits)
	counted := "its clients all count as its address for RATE_LIMIT and AUTH_FAILURE_LIMIT"
	if peer.IsLoopback() && u.exemptLoopback {
		counted = "its clients are not counted by RATE_LIMIT at all (RATE_LIMIT_EXEMPT_LOOPBACK is on), and count as one for AUTH_FAILURE_LIMIT"
	}
	u.logger.Warn("a request came with X-Forwarded-For or Forwarded from a peer that TRUSTED_PROXIES does not list: "+
		"the header is ignored, and if the peer is a proxy in front of the service, "+counted+
		"; add the proxy's address or network to TRUSTED_PROXIES (logged at most once an hour)",
		slog.String("peer_network", network.String()))
}

func (u *untrustedProxy) isTrusted(peer netip.Addr) bool {
	for _, p := range u.trusted {
		if p.Contains(peer) {
			return true
		}
	}
	return false
}
