package httpapi

import (
	"net/http"
	"slices"
)

// CORS lets browser pages from the given origins (such as "https://library.example.org", or
// "*" for any) call the API. With none, it adds nothing and browsers keep their same-origin
// rule. Pages may send Idempotency-Key, If-Match and Authorization and read
// Idempotent-Replayed, X-Request-Id, Retry-After and ETag (the version a change of the
// circulation rules is made on: neither is a header a browser lets a page send or read across
// origins unless told). No cookies are involved, so credentials are not allowed.
func CORS(origins []string) func(http.Handler) http.Handler {
	anyOrigin := slices.Contains(origins, "*")
	allowed := func(origin string) bool {
		return origin != "" && (anyOrigin || slices.Contains(origins, origin))
	}
	return func(next http.Handler) http.Handler {
		if len(origins) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Add("Vary", "Origin")
			origin := r.Header.Get("Origin")
			if !allowed(origin) {
				next.ServeHTTP(w, r)
				return
			}
			allowOrigin := origin
			if anyOrigin {
				allowOrigin = "*"
			}
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				// A preflight: answered here, before routing, which knows no OPTIONS.
				h.Add("Vary", "Access-Control-Request-Method")
				h.Add("Vary", "Access-Control-Request-Headers")
				h.Set("Access-Control-Allow-Origin", allowOrigin)
				h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE")
				h.Set("Access-Control-Allow-Headers", corsRequestHeaders)
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			h.Set("Access-Control-Allow-Origin", allowOrigin)
			h.Set("Access-Control-Expose-Headers", corsExposedHeaders)
			next.ServeHTTP(w, r)
		})
	}
}

const (
	corsRequestHeaders = "Content-Type, " + IdempotencyKeyHeader + ", If-Match, Authorization, " + RequestIDHeader
	corsExposedHeaders = ReplayedHeader + ", " + RequestIDHeader + ", Retry-After, Allow, ETag"
)
