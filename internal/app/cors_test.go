package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/config"
)

// A web page from a configured origin may pay with a key and read whether its answer was a
// replay; a page from anywhere else gets no CORS headers.
func TestCORS(t *testing.T) {
	t.Parallel()
	cfg, err := config.FromEnv(func(name string) string {
		if name == "CORS_ORIGINS" {
			return "https://library.example.org, http://localhost:5173"
		}
		return ""
	})
	require.NoError(t, err)
	require.Equal(t, []string{"https://library.example.org", "http://localhost:5173"}, cfg.CORSOrigins)
	a := &api{Base: startService(t, app.Config{CORSOrigins: cfg.CORSOrigins})}

	preflight := a.Send(t, http.MethodOptions, "/accounts/alice/payments", nil,
		"Origin", "https://library.example.org", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type, idempotency-key")
	require.Equal(t, http.StatusNoContent, preflight.Status)
	assert.Equal(t, "https://library.example.org", preflight.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, preflight.Header.Get("Access-Control-Allow-Headers"), "Idempotency-Key")

	fine := a.Call(t, http.MethodPost, "/accounts/alice/fines", obj{"amount": 300, "reason": "late"}, "Origin", "http://localhost:5173")
	requireResult(t, fine, http.StatusCreated, "account-alice")
	assert.Equal(t, "http://localhost:5173", fine.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, fine.Header.Get("Access-Control-Expose-Headers"), "Idempotent-Replayed")
	assert.Contains(t, fine.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id")

	other := a.Get(t, "/accounts/alice")
	assert.Empty(t, other.Header.Get("Access-Control-Allow-Origin"), "no Origin, no CORS")
	evil := a.Send(t, http.MethodGet, "/accounts/alice", nil, "Origin", "https://evil.example.com")
	assert.Empty(t, evil.Header.Get("Access-Control-Allow-Origin"))

	_, err = config.FromEnv(func(name string) string {
		if name == "CORS_ORIGINS" {
			return "https://library.example.org/path"
		}
		return ""
	})
	require.ErrorContains(t, err, "CORS_ORIGINS")
}
