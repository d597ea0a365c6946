package smtpclient

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

// Config.Timeout bounds an SMTP conversation on its own, with no deadline on the context: a
// server that accepts the connection but never greets, and one that never answers a message,
// fail the Send after about Timeout instead of holding it.
func TestSMTPMailerTimeoutWithoutDeadline(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond

	t.Run("no greeting", func(t *testing.T) {
		t.Parallel()
		m := New(Config{Host: "127.0.0.1", Port: silentServer(t), TLS: TLSNone, Timeout: timeout}, nil)
		start := time.Now()
		require.Error(t, m.Send(context.Background(), loanEmail(1)))
		require.Less(t, time.Since(start), 5*time.Second, "Send waited for the greeting beyond its Timeout")
		require.NoError(t, m.Close())
	})

	t.Run("no answer to the message", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t)
		cfg, err := ParseURL(srv.URL())
		require.NoError(t, err)
		cfg.Timeout = timeout
		m := New(cfg, nil)
		t.Cleanup(func() { _ = m.Close() })
		srv.SetDelay(time.Hour)
		start := time.Now()
		require.Error(t, m.Send(context.Background(), loanEmail(1)))
		require.Less(t, time.Since(start), 5*time.Second, "Send waited for the server's answer beyond its Timeout")
		require.Empty(t, srv.Messages())
	})

	t.Run("the default", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 10*time.Second, New(Config{Host: "h"}, nil).cfg.Timeout)
	})
}
