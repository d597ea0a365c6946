package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCORS(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })
	serve := func(origins []string, method, origin string, headers ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/accounts/alice/payments", nil)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		w := httptest.NewRecorder()
		CORS(origins)(ok).ServeHTTP(w, r)
		return w
	}
	site := []string{"https://library.example.org"}

	t.Run("none configured: nothing added", func(t *testing.T) {
		w := serve(nil, http.MethodPost, "https://library.example.org")
		require.Equal(t, http.StatusCreated, w.Code)
		require.Empty(t, w.Header().Get("Access-Control-Allow-Origin"))
	})
	t.Run("an allowed origin reads the headers it needs", func(t *testing.T) {
		w := serve(site, http.MethodPost, "https://library.example.org")
		require.Equal(t, http.StatusCreated, w.Code)
		require.Equal(t, "https://library.example.org", w.Header().Get("Access-Control-Allow-Origin"))
		require.Contains(t, w.Header().Get("Access-Control-Expose-Headers"), "Idempotent-Replayed")
		require.Contains(t, w.Header().Get("Access-Control-Expose-Headers"), "X-Request-Id")
		require.Contains(t, w.Header().Get("Access-Control-Expose-Headers"), "ETag", "the circulation rules' version")
		require.Contains(t, w.Header().Values("Vary"), "Origin")
	})
	t.Run("a preflight from an allowed origin may send Idempotency-Key", func(t *testing.T) {
		w := serve(site, http.MethodOptions, "https://library.example.org",
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, idempotency-key")
		require.Equal(t, http.StatusNoContent, w.Code)
		require.Equal(t, "https://library.example.org", w.Header().Get("Access-Control-Allow-Origin"))
		require.Contains(t, w.Header().Get("Access-Control-Allow-Headers"), "Idempotency-Key")
		require.Contains(t, w.Header().Get("Access-Control-Allow-Headers"), "If-Match", "PUT /circulation-rules wants it")
		require.Contains(t, w.Header().Get("Access-Control-Allow-Methods"), "POST")
		require.Contains(t, w.Header().Get("Access-Control-Allow-Methods"), "PATCH", "a title's record is changed with PATCH")
		require.Empty(t, w.Header().Get("Access-Control-Allow-Credentials"))
	})
	t.Run("another origin gets no CORS headers", func(t *testing.T) {
		for _, method := range []string{http.MethodPost, http.MethodOptions} {
			w := serve(site, method, "https://evil.example.com", "Access-Control-Request-Method", "POST")
			require.Empty(t, w.Header().Get("Access-Control-Allow-Origin"), method)
			require.NotEqual(t, http.StatusNoContent, w.Code, "no preflight answer for %s", method)
		}
	})
	t.Run("any origin with *", func(t *testing.T) {
		w := serve([]string{"*"}, http.MethodPost, "https://anywhere.example")
		require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
	})
}
