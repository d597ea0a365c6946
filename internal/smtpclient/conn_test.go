package smtpclient

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

func TestSMTPMailerContextCancelledOnSlowServer(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)
	// An open connection first, so that the deadline below is spent waiting for the server
	// and not on connecting, however slow the machine.
	require.NoError(t, m.Send(t.Context(), loanEmail(1)))

	srv.SetDelay(time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := m.Send(ctx, loanEmail(2))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 5*time.Second, "Send waited for the server instead of the context")
	require.Len(t, srv.Messages(), 1)

	// The interrupted connection is gone; the next Send dials again.
	srv.SetDelay(0)
	require.NoError(t, m.Send(t.Context(), loanEmail(3)))
	msgs := srv.WaitForMessages(t, 2, waitFor)
	require.Equal(t, "<notifications.3@library>", msgs[1].MessageID)
	require.Equal(t, 2, msgs[1].Conn)

	cancelled, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	require.ErrorIs(t, m.Send(cancelled, loanEmail(4)), context.Canceled)
}

// A context that ends while connecting stops the dial too: this server accepts connections
// but never sends its greeting, so only the context can end the wait.
func TestSMTPMailerContextCancelledWhileConnecting(t *testing.T) {
	t.Parallel()
	m := New(Config{Host: "127.0.0.1", Port: silentServer(t), TLS: TLSNone, Timeout: time.Minute}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	require.ErrorIs(t, m.Send(ctx, loanEmail(1)), context.DeadlineExceeded)
	require.Less(t, time.Since(start), 5*time.Second)
	require.NoError(t, m.Close())

	cancelled, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	require.ErrorIs(t, m.Send(cancelled, loanEmail(2)), context.Canceled)
}

func TestSMTPMailerConnectionRefused(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	p := port(t, srv)
	srv.Close() // nothing listens on the port any more
	m := New(Config{Host: "127.0.0.1", Port: p, TLS: TLSNone, Password: "unused-secret", Username: "u", Timeout: waitFor}, nil)
	err := m.Send(t.Context(), loanEmail(1))
	require.Error(t, err)
	require.NotContains(t, err.Error(), "unused-secret")
	require.False(t, errors.Is(err, context.Canceled))
	require.NoError(t, m.Close())
}

// silentServer listens on a loopback port, accepts one connection and never says a word: a
// mail server that hangs before its greeting. It returns the port.
func silentServer(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	accepted := make(chan net.Conn, 1)
	go func() {
		defer close(accepted)
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		if c, ok := <-accepted; ok {
			_ = c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}
