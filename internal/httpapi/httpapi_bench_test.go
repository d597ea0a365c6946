package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"library/internal/errs"
)

// benchRequest is a request as the handlers see it once the middleware has given it an id.
func benchRequest() *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/accounts/m1/payments", nil)
	info := &requestInfo{id: "KQ3Z7J2XW5RPM4TN6HBVYC8DFA"}
	return r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
}

// BenchmarkWriteError measures answering with a problem+json document: status lookup, JSON
// encoding and headers. "domain" is an *errs.Error a client gets for a refused command (409);
// "internal" is any other error, answered 500 with its text hidden. Every refused or failed
// request pays it. Each iteration includes a fresh httptest.ResponseRecorder.
func BenchmarkWriteError(b *testing.B) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
	}{
		{"domain", errs.E(errs.NothingToPay, "there is nothing to pay: the balance is %d cents", 0), http.StatusConflict},
		{"internal", errors.New("pq: connection reset by peer"), http.StatusInternalServerError},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := benchRequest()
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				WriteError(w, r, tc.err)
				if w.Code != tc.status {
					b.Fatalf("status %d, want %d", w.Code, tc.status)
				}
			}
		})
	}
}
