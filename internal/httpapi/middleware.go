package httpapi

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"library/internal/errs"
	"library/internal/validate"
)

// RequestIDHeader carries the request id in both directions. A client's own id is kept when it
// is a valid identifier; otherwise the service makes one.
const RequestIDHeader = "X-Request-Id"

// requestInfo is what one request's log line needs from the handlers that ran it.
type requestInfo struct {
	id         string
	err        error
	clientGone bool
}

type requestInfoKey struct{}

func requestInfoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return info
}

// RequestID returns the id of the request that ctx belongs to, or "" outside a request.
func RequestID(ctx context.Context) string {
	if info := requestInfoFrom(ctx); info != nil {
		return info.id
	}
	return ""
}

// observe gives each request an id, recovers from panics with a 500 problem, and writes one
// structured log line per request when it ends, and tells observer (if any) of it.
func observe(logger *slog.Logger, observer func(method, route string, status int, elapsed time.Duration)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			s := &requestState{Context: r.Context(), writer: statusWriter{ResponseWriter: w}}
			info, ww := &s.info, &s.writer
			info.id = r.Header.Get(RequestIDHeader)
			if !validate.IsID(info.id) {
				info.id = rand.Text()
			}
			s.idHeader[0] = info.id
			w.Header()[RequestIDHeader] = s.idHeader[:] // Header().Set, with a slice of its own
			r = r.WithContext(s)

			defer func() {
				if v := recover(); v != nil {
					if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
						panic(v) // net/http's way to abort a response; it handles it
					}
					err := fmt.Errorf("panic: %v\n%s", v, debug.Stack())
					if ww.status == 0 {
						WriteError(ww, r, err)
					} else {
						info.err = err
					}
				}
				elapsed := time.Since(start)
				status, route := outcome(r, ww, info)
				if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
					// The route is known only once routing is done: the span is named after it,
					// never after the path, whose ids would make a name per member.
					span.SetName(spanMethod(r.Method) + " " + orUnmatched(route))
					span.SetAttributes(attribute.String("http.route", orUnmatched(route)), attribute.String("library.request_id", info.id))
				}
				logRequest(logger, r, ww, info, status, route, elapsed)
				if observer != nil {
					observer(r.Method, route, status, elapsed)
				}
			}()
			next.ServeHTTP(ww, r)
		})
	}
}

// outcome is the status a request ended with (499 when the client went away first) and the
// route pattern chi matched, once the handlers have run.
func outcome(r *http.Request, ww *statusWriter, info *requestInfo) (status int, route string) {
	status = ww.status
	if status == 0 {
		status = http.StatusOK
	}
	if info.clientGone {
		status = 499
	}
	if rc := chi.RouteContext(r.Context()); rc != nil {
		route = rc.RoutePattern()
	}
	return status, route
}

func logRequest(logger *slog.Logger, r *http.Request, ww *statusWriter, info *requestInfo, status int, route string, elapsed time.Duration) {
	attrs := []slog.Attr{
		slog.String("request_id", info.id),
		slog.String("method", r.Method),
		slog.String("route", route), // the pattern, never the raw path: paths carry member ids
		slog.Int("status", status),
		slog.Int("bytes", ww.bytes),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
	}
	level := slog.LevelInfo
	if info.err != nil {
		// A client's mistake is logged by its code alone: its detail names the ids in the
		// request. A failure of the service keeps its text, which is the service's own.
		attrs = append(attrs, slog.String("code", string(errs.CodeOf(info.err))))
		if status >= 500 {
			attrs = append(attrs, slog.String("error", info.err.Error()))
		}
		if status >= 500 && status != 503 {
			level = slog.LevelError
		} else if status >= 500 {
			level = slog.LevelWarn
		}
	}
	logger.LogAttrs(r.Context(), level, "request", attrs...)
}

// limitBody caps request bodies; reading past the limit fails, and DecodeJSON answers 413.
func limitBody(limit int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			next.ServeHTTP(w, r)
		})
	}
}

// deadline bounds the time a request may spend, including its database calls. A call cut off
// by it is answered 503 Unavailable.
func deadline(timeout time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

func orUnmatched(route string) string {
	if route == "" {
		return "unmatched"
	}
	return route
}
