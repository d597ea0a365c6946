package processorhttp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/drivertest"
)

// The token is read from the one Authorization header and nowhere else: a second header, or the
// token under another name, does not open the admin endpoints.
func TestHTTPAdminTokenOnlyFromTheAuthorizationHeader(t *testing.T) {
	t.Parallel()
	r := newHTTPReplicas(t)
	for _, tc := range []struct {
		why     string
		headers [][2]string
	}{
		{"a wrong Authorization header before the right one", [][2]string{{"Authorization", "Bearer wrong"}, {"Authorization", "Bearer " + adminToken}}},
		{"the token in another header", [][2]string{{"X-Admin-Token", adminToken}}},
		{"the token as a proxy's credentials", [][2]string{{"Proxy-Authorization", "Bearer " + adminToken}}},
	} {
		req := httptest.NewRequest(http.MethodPost, "/admin/processors/emails/retry-parked", nil)
		for _, h := range tc.headers {
			req.Header.Add(h[0], h[1])
		}
		w := httptest.NewRecorder()
		r.holder.ServeHTTP(w, req)
		requireProblem(t, w, http.StatusUnauthorized, "Unauthorized")
	}
	require.Equal(t, 2, drivertest.CountParked(t, r.env.cps, "emails"), "nothing was requeued")
}
