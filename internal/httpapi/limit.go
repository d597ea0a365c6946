package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/httprate"

	"library/internal/auth"
	"library/internal/errs"
)

// Limit is at most N requests in any window of length Per, counted as httprate counts: a
// sliding window, per replica. N 0 is no limit; Per is one second at least.
type Limit struct {
	N   int
	Per time.Duration
}

// Limits are the edge's bounds on what one client may ask of a replica, so that no one caller
// can wear the service down. Each is answered 429 TooManyRequests, a problem like any other,
// with Retry-After: the limit's window, in seconds. The zero value limits nothing.
type Limits struct {
	// Requests bounds every request of a client, whatever it asks: a caller who signed in (or
	// ADMIN_TOKEN) counts by who they are (issuer and subject), from whatever address; anyone
	// else by their address (ClientAddress). It is counted once the caller is known, after
	// routing and the token's check; a path that no route has counts by address. A request
	// from loopback counts like any other, unless ExemptLoopback says otherwise.
	Requests Limit
	// ExemptLoopback leaves out of Requests every request whose address (ClientAddress) is
	// loopback: a script or a benchmark on this machine. Off by default, for a proxy on this
	// machine (nginx beside the service, a sidecar such as Istio's, which forwards from
	// 127.0.0.6) makes every client it forwards a loopback one, unless it is one of
	// Options.TrustedProxies: the exemption would turn Requests off for everyone.
	ExemptLoopback bool
	// AuthFailures bounds the requests that one address may have refused for their token (401:
	// a malformed, badly signed, expired or foreign token, or a wrong ADMIN_TOKEN). Once over,
	// each further refused token from that address is answered 429 instead of 401, until the
	// window has passed: a client that keeps sending a dead token is told to back off, and a
	// guesser learns nothing new. Every token is still checked, and a right one (ADMIN_TOKEN
	// included) is served whatever its address has sent: an address may be a proxy's or a NAT's,
	// shared by many, and one client's failures must not lock the others out. What bounds the
	// cost of refused tokens is that checking one is cheap (the provider's keys are cached); a
	// request without a token is not an attempt, and is not counted.
	AuthFailures Limit
	// AccountData bounds, per client (as Requests counts them) and per route, the calls that
	// hand over or erase everything a member holds (accountDataRoutes), once allowed.
	AccountData Limit
}

// accountDataRoutes are the routes that AccountData bounds, by method and pattern.
var accountDataRoutes = map[string]bool{
	http.MethodPost + " /accounts/{memberId}/erasure": true,
	http.MethodGet + " /accounts/{memberId}/export":   true,
}

// limiter holds a router's counters: one httprate.RateLimiter per limit, nil when it is off.
type limiter struct {
	requests, authFailures, accountData *httprate.RateLimiter
	limits                              Limits
}

func newLimiter(l Limits) *limiter {
	l.Requests = l.Requests.normal()
	l.AuthFailures = l.AuthFailures.normal()
	l.AccountData = l.AccountData.normal()
	return &limiter{
		limits: l,
		requests: newRateLimiter(l.Requests, fmt.Sprintf("too many requests: at most %d %s from one client; try again after Retry-After seconds",
			l.Requests.N, per(l.Requests.Per))),
		authFailures: newRateLimiter(l.AuthFailures, fmt.Sprintf("the bearer token was refused, and too many have been from your address "+
			"(at most %d %s); a right token is still accepted; try again after Retry-After seconds", l.AuthFailures.N, per(l.AuthFailures.Per))),
		accountData: newRateLimiter(l.AccountData, fmt.Sprintf("too many exports or erasures: at most %d %s of each from one client; try again after Retry-After seconds",
			l.AccountData.N, per(l.AccountData.Per))),
	}
}

func (l Limit) normal() Limit {
	l.Per = max(l.Per, time.Second) // Retry-After is in whole seconds
	return l
}

// newRateLimiter is an httprate limiter that answers with a TooManyRequests problem and sends no
// header but Retry-After (several limits may count one request: their X-RateLimit-* would clash).
func newRateLimiter(l Limit, detail string) *httprate.RateLimiter {
	if l.N <= 0 {
		return nil
	}
	return httprate.NewRateLimiter(l.N, l.Per,
		httprate.WithResponseHeaders(httprate.ResponseHeaders{RetryAfter: "Retry-After"}),
		httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, errs.E(errs.TooManyRequests, "%s", detail))
		}),
		httprate.WithErrorHandler(func(w http.ResponseWriter, r *http.Request, err error) {
			WriteError(w, r, err) // the in-memory counter never fails
		}))
}

func per(d time.Duration) string {
	switch d {
	case time.Second:
		return "a second"
	case time.Minute:
		return "a minute"
	}
	return "in " + d.String()
}

// request counts a request of caller against Limits.Requests. When it is one too many, it
// answers 429 and reports true.
func (l *limiter) request(w http.ResponseWriter, r *http.Request, caller auth.Caller) bool {
	if l.requests == nil || (l.limits.ExemptLoopback && ClientAddress(r).IsLoopback()) {
		return false
	}
	return l.requests.RespondOnLimit(w, r, clientKey(r, caller))
}

// unrouted limits the answers to paths and methods that no route has, by address.
func (l *limiter) unrouted(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if l.request(w, r, auth.Caller{}) {
			return
		}
		h(w, r)
	}
}

// authFailed counts a refused token against the request's address. When that is one too many,
// it answers 429 and reports true; otherwise the caller answers 401. It is asked only once the
// token has been checked and refused.
func (l *limiter) authFailed(w http.ResponseWriter, r *http.Request) bool {
	if l.authFailures == nil {
		return false
	}
	return l.authFailures.RespondOnLimit(w, r, addressKey(r))
}

// accountDataCall counts an allowed call of an account-data route against Limits.AccountData;
// when it is one too many, it answers 429 and reports true.
func (l *limiter) accountDataCall(w http.ResponseWriter, r *http.Request, caller auth.Caller, pattern string) bool {
	if l.accountData == nil {
		return false
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	route := method + " " + pattern
	if !accountDataRoutes[route] {
		return false
	}
	return l.accountData.RespondOnLimit(w, r, clientKey(r, caller)+"\x00"+route)
}

// ClientKey is who a request counts as for the limits, for a handler that bounds something of
// its own per client: the caller who signed in (or ADMIN_TOKEN's holder), by issuer and
// subject, or else the address (ClientAddress, an IPv6 one by its /64). It is known once the
// rules have let the request through, as in a route's handler. An opaque key, to count by,
// never to show or log: it may hold an address.
func ClientKey(r *http.Request) string {
	return clientKey(r, auth.AccessFrom(r.Context()).Caller)
}

// clientKey is who a request counts as: the caller who signed in (or ADMIN_TOKEN's holder), by
// issuer and subject, or else the address.
func clientKey(r *http.Request, caller auth.Caller) string {
	if caller.Subject != "" {
		return "subject\x00" + caller.Issuer + "\x00" + caller.Subject
	}
	return addressKey(r)
}

// addressKey is the request's address as a key: an IPv6 address by its /64, which one client
// usually holds whole.
func addressKey(r *http.Request) string {
	addr := ClientAddress(r).WithZone("")
	if !addr.Is4() {
		return "address\x00" + httprate.CanonicalizeIP(addr.String())
	}
	// The same string, made in one allocation rather than two: every request counts.
	var key [len("address\x00255.255.255.255")]byte
	return string(addr.AppendTo(append(key[:0], "address\x00"...)))
}
