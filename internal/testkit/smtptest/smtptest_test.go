package smtptest_test

import (
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

const sample = "From: Library <noreply@library.test>\r\n" +
	"To: reader@example.com\r\n" +
	"Subject: =?UTF-8?q?Der_Zauberberg_=E2=80=93_=C3=9Cn=C3=AFcode?=\r\n" +
	"Message-ID: <notifications.1@library>\r\n" +
	"Content-Type: text/plain; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Due back on 2026-03-01.\r\n" +
	"Caf=C3=A9\r\n"

// dial connects a client to srv in the given TLS mode ("", "starttls" or "tls") and closes it
// when the test ends.
func dial(t *testing.T, srv *smtptest.Server, mode string) *smtp.Client {
	t.Helper()
	var c *smtp.Client
	var err error
	switch mode {
	case "":
		c, err = smtp.Dial(srv.Addr())
	case "starttls":
		c, err = smtp.DialStartTLS(srv.Addr(), srv.ClientTLSConfig())
	case "tls":
		c, err = smtp.DialTLS(srv.Addr(), srv.ClientTLSConfig())
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// requireReply checks that err is the server's refusal with exactly this code, enhanced code
// and text.
func requireReply(t *testing.T, err error, code int, enhanced smtp.EnhancedCode, text string) {
	t.Helper()
	var smtpErr *smtp.SMTPError
	require.ErrorAs(t, err, &smtpErr)
	require.Equal(t, code, smtpErr.Code)
	require.Equal(t, enhanced, smtpErr.EnhancedCode)
	require.Equal(t, text, smtpErr.Message)
}

// requireClosed checks that err is what a client gets from a connection the server has
// closed: an I/O error, not a reply.
func requireClosed(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	var smtpErr *smtp.SMTPError
	require.False(t, errors.As(err, &smtpErr), "got a reply, want a closed connection: %v", err)
	var netErr net.Error
	require.True(t, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &netErr),
		"want an I/O error, got %T: %v", err, err)
}

// requireSettles waits until no connection and no transaction is open on the server.
func requireSettles(t *testing.T, srv *smtptest.Server, conns, conversations int) {
	t.Helper()
	require.Eventually(t, func() bool {
		srv.ResetMax() // the maxima now read the current counts
		return srv.MaxConnections() == conns && srv.MaxConversations() == conversations
	}, 5*time.Second, time.Millisecond, "want %d connection(s) and %d transaction(s) open", conns, conversations)
}

// send delivers one message over an open client.
func send(t *testing.T, c *smtp.Client, from string, to ...string) error {
	t.Helper()
	return c.SendMail(from, to, strings.NewReader(sample))
}

func TestRecordsMessage(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)

	c, err := smtp.Dial(srv.Addr())
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	require.NoError(t, send(t, c, "noreply@library.test", "reader@example.com"))
	require.NoError(t, c.Quit())

	msgs := srv.WaitForMessages(t, 1, 5*time.Second)
	require.Len(t, msgs, 1)
	m := msgs[0]
	require.Equal(t, "noreply@library.test", m.From)
	require.Equal(t, []string{"reader@example.com"}, m.To)
	require.Equal(t, "<notifications.1@library>", m.MessageID)
	require.Equal(t, "Der Zauberberg – Ünïcode", m.Subject)
	require.Equal(t, "Due back on 2026-03-01.\nCafé\n", m.Body)
	require.Equal(t, "Library <noreply@library.test>", m.Header.Get("From"))
	require.Equal(t, sample, string(m.Raw))
	require.Equal(t, 1, m.Conn)
	require.Equal(t, 1, srv.Connections())

	// The copy is the caller's own.
	msgs[0].To[0] = "changed"
	msgs[0].Header["From"][0] = "changed"
	require.Equal(t, "reader@example.com", srv.Messages()[0].To[0])
	require.Equal(t, "Library <noreply@library.test>", srv.Messages()[0].Header.Get("From"))
}

func TestConnectionNumbers(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	for range 2 {
		c, err := smtp.Dial(srv.Addr())
		require.NoError(t, err)
		require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
		require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
		require.NoError(t, c.Quit())
	}
	msgs := srv.WaitForMessages(t, 4, 5*time.Second)
	require.Equal(t, []int{1, 1, 2, 2}, []int{msgs[0].Conn, msgs[1].Conn, msgs[2].Conn, msgs[3].Conn})
	require.Equal(t, 2, srv.Connections())
}

func TestTLSModesAndAuth(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"", "starttls", "tls"} {
		t.Run("tls="+mode, func(t *testing.T) {
			t.Parallel()
			srv := smtptest.Start(t, smtptest.Options{Username: "lib", Password: "s3cret", TLS: mode})

			u, err := url.Parse(srv.URL())
			require.NoError(t, err)
			require.Equal(t, srv.Addr(), u.Host)
			require.Equal(t, "lib", u.User.Username())
			wantTLS := mode
			if mode == "" {
				wantTLS = "none"
			}
			require.Equal(t, wantTLS, u.Query().Get("tls"))

			c := dial(t, srv, mode)
			require.Error(t, send(t, c, "a@example.com", "b@example.com"), "unauthenticated MAIL FROM")
			require.Error(t, c.Auth(sasl.NewPlainClient("", "lib", "wrong")))

			c = dial(t, srv, mode)
			require.NoError(t, c.Auth(sasl.NewPlainClient("", "lib", "s3cret")))
			require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
			require.NoError(t, c.Quit())
			msgs := srv.WaitForMessages(t, 1, 5*time.Second)
			require.Len(t, msgs, 1)
			require.Equal(t, 2, msgs[0].Conn, "numbered by TCP connection, through TLS")
			require.Equal(t, 2, srv.Connections())
		})
	}
}

func TestWaitForMessagesConcurrent(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	const senders = 5
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			c, err := smtp.Dial(srv.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			defer func() { _ = c.Close() }()
			if err := c.SendMail("a@example.com", []string{"b@example.com"}, strings.NewReader(sample)); err != nil {
				t.Error(err)
			}
		})
	}
	msgs := srv.WaitForMessages(t, senders, 10*time.Second)
	require.Len(t, msgs, senders)
	wg.Wait()
	require.Equal(t, senders, srv.Connections())
}

// A connection that never says anything must not keep Close (or its goroutine) waiting.
func TestCloseWithIdleConnection(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t, smtptest.Options{TLS: "tls"})
	conn, err := net.Dial("tcp", srv.Addr())
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	require.Eventually(t, func() bool { return srv.Connections() == 1 }, 5*time.Second, time.Millisecond)
	srv.Close()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = io.ReadAll(conn)
	var netErr net.Error
	require.False(t, errors.As(err, &netErr) && netErr.Timeout(), "connection still open after Close")
}
