// Package httpapi is the HTTP edge of the service: the router, problem+json errors, and the
// middleware every request goes through.
//
// What it promises to every route: a request id (X-Request-Id, in the problem's instance and on
// the request's log line); one structured log line per request; bodies capped at 1 MiB and
// decoded strictly; a deadline on the whole request; and errors answered as RFC 9457 problems
// whose status comes from one table keyed by error code. A panic or an error without a code is
// a 500 whose text is logged, never sent. An unreachable database is a 503 with Retry-After.
// Every answer is nosniff and, unless its handler says otherwise, no-store. Limits bound what
// one client may ask (429 with Retry-After); spans record the route, never the path.
//
// Feature packages add their routes as Modules and write their handlers with Handle, DecodeJSON,
// PathID, IdempotencyKey and WriteResult.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"library/internal/auth"
	"library/internal/errs"
)

// Module is a feature's set of routes.
type Module interface {
	Routes(r chi.Router)
}

// Options configure the router.
type Options struct {
	// Logger gets one line per request. Nil: no request log.
	Logger *slog.Logger
	// Ready reports whether the service can take traffic; /readyz answers 503 while it fails.
	Ready func(ctx context.Context) error
	// RequestTimeout bounds each request. Default 10s.
	RequestTimeout time.Duration
	// Observe, when set, is told of every request as it ends: its method, its route pattern
	// ("/accounts/{memberId}", never the path, so that ids don't become metric labels; "" when
	// no route matched), its status and how long it took.
	Observe func(method, route string, status int, elapsed time.Duration)
	// CORSOrigins are the browser origins allowed to call the API (see CORS); none by default.
	CORSOrigins []string
	// Guard tells who sent each request. Nil: sign-in is off and there is no ADMIN_TOKEN,
	// so every route but the admin actions is open.
	Guard *auth.Guard
	// Rules say who may call each route. Nil: auth.Rules(). A route without a rule is refused.
	Rules []auth.Rule
	// TracerProvider, when set, makes a span of every request (named by its route pattern),
	// the parent of what the request does. A traceparent that a client sends is linked to,
	// not taken as the parent: the API is public. Nil: no spans, at no cost. The span records
	// no path, query, Host, User-Agent or X-Forwarded-For (see traced).
	TracerProvider trace.TracerProvider
	// Limits bound what one client may ask (see Limits); the zero value limits nothing.
	Limits Limits
	// TrustedProxies are the proxies whose X-Forwarded-For tells the client's address (see
	// ClientAddress); none by default, and then X-Forwarded-For is ignored. A request that
	// carries X-Forwarded-For or Forwarded from any other peer is logged as a warning (the
	// first of the process, then at most once an hour), naming the peer's network.
	TrustedProxies []netip.Prefix
}

// New returns the service's HTTP handler with the given feature modules mounted.
func New(opts Options, modules ...Module) http.Handler {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := chi.NewRouter()
	untrusted := newUntrustedProxy(opts.Logger, opts.TrustedProxies, opts.Limits.ExemptLoopback, time.Now)
	r.Use(securityHeaders, observe(opts.Logger, opts.Observe), CORS(opts.CORSOrigins), clientIP(opts.TrustedProxies), untrusted.middleware,
		limitBody(MaxBodyBytes), deadline(opts.RequestTimeout), middleware.GetHead)
	if opts.Guard == nil {
		opts.Guard = auth.NewGuard(nil, "")
	}
	if opts.Rules == nil {
		opts.Rules = auth.Rules()
	}
	limits := newLimiter(opts.Limits)
	r.NotFound(limits.unrouted(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, errs.E(errs.NotFound, "there is nothing at this path"))
	}))
	r.MethodNotAllowed(limits.unrouted(methodNotAllowed))

	// Routes run their rules after routing, in this group, so the rules see the route's pattern;
	// the limits are counted there too, once the caller is known.
	r.Group(func(r chi.Router) {
		r.Use(authorize(opts.Guard, auth.NewTable(opts.Rules), limits))
		health(r, opts.Ready)
		for _, m := range modules {
			m.Routes(r)
		}
	})
	if opts.TracerProvider == nil {
		return r
	}
	return traced(opts.TracerProvider, r)
}

// securityHeaders marks every answer nosniff, and not to be stored: the API's answers are
// per caller and of the moment. A handler that may be cached says so itself (the web app's
// files are no-cache, revalidated by ETag).
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Header().Set each, with one array for both values rather than one each.
		v := &[2]string{"nosniff", "no-store"}
		h := w.Header()
		h["X-Content-Type-Options"], h["Cache-Control"] = v[0:1:1], v[1:2:2]
		next.ServeHTTP(w, r)
	})
}

// requestKey holds, in the context otelhttp sees, the request as it came.
type requestKey struct{}

// traced makes a span of every request with otelhttp, from a copy of the request that holds
// only what is bounded and true: the method (a standard one, or _OTHER), the TCP peer, the
// protocol, and the traceparent and tracestate that the span links to. The path and query
// (ids, and as long as a client likes), Host, User-Agent and X-Forwarded-For (whatever a
// client says) never reach it: observe names the span, and sets http.route, from the route
// pattern. The handlers get the request as it came, in the span's context.
func traced(tp trace.TracerProvider, next http.Handler) http.Handler {
	spanned := otelhttp.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, seen *http.Request) {
		r, _ := seen.Context().Value(requestKey{}).(*http.Request)
		r = r.WithContext(seen.Context())
		r.Body = seen.Body // counted by otelhttp
		next.ServeHTTP(w, r)
	}), "request",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithPublicEndpointFn(func(*http.Request) bool { return true }),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := r.WithContext(context.WithValue(r.Context(), requestKey{}, r))
		seen.Method = spanMethod(r.Method)
		seen.URL = &url.URL{}
		seen.RequestURI = ""
		seen.Host = ""
		seen.Header = http.Header{}
		for _, name := range []string{"Traceparent", "Tracestate"} {
			if v := r.Header.Values(name); len(v) > 0 {
				seen.Header[name] = v
			}
		}
		spanned.ServeHTTP(w, seen)
	})
}

// spanMethod is a request's method as spans show it: one of HTTP's own, or _OTHER, so that a
// client can't make a span's name or attributes as long as it likes.
func spanMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "_OTHER"
}

// health serves /healthz, which answers while the process serves, and /readyz, which answers
// 503 while ready fails.
func health(r chi.Router, ready func(ctx context.Context) error) {
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, r, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", Handle(func(w http.ResponseWriter, r *http.Request) error {
		if ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			if err := ready(ctx); err != nil {
				if errs.Is(err, errs.Unavailable) {
					return err // its detail says why
				}
				return errs.Wrap(errs.Unavailable, err, "not ready")
			}
		}
		WriteJSON(w, r, http.StatusOK, map[string]string{"status": "ready"})
		return nil
	}))
}

// methodNotAllowed answers 405 with the Allow header listing the methods the path has.
func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.Routes != nil {
		path := r.URL.RawPath // route on what chi routed on
		if path == "" {
			path = r.URL.Path
		}
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if rctx.Routes.Match(chi.NewRouteContext(), method, path) {
				w.Header().Add("Allow", method)
			}
		}
	}
	WriteError(w, r, errs.E(errs.MethodNotAllowed, "this path does not accept %s", r.Method))
}
