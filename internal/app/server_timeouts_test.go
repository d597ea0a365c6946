package app

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The HTTP server the service builds bounds every phase of a connection, so that a client
// that sends slowly, reads slowly or sits idle can't hold a connection (and its goroutine)
// forever; and it leaves a request that hits REQUEST_TIMEOUT the time to write its 503.
func TestHTTPServerTimeouts(t *testing.T) {
	t.Parallel()
	for _, requestTimeout := range []time.Duration{0, 3 * time.Second, time.Minute} {
		a, err := New(context.Background(), Config{HTTPAddr: "127.0.0.1:0", RequestTimeout: requestTimeout},
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = a.listener.Close()
			a.closeStore()
		})
		s := a.server
		require.Positive(t, s.ReadHeaderTimeout, "ReadHeaderTimeout")
		require.Positive(t, s.ReadTimeout, "ReadTimeout")
		require.Positive(t, s.WriteTimeout, "WriteTimeout")
		require.Positive(t, s.IdleTimeout, "IdleTimeout")
		require.LessOrEqual(t, s.ReadHeaderTimeout, s.ReadTimeout)
		require.Greater(t, s.WriteTimeout, a.cfg.RequestTimeout, "a request cut off by REQUEST_TIMEOUT can still be answered")
	}
}
