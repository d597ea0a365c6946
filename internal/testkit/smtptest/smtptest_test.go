package smtptest_test

import (
	"errors"
	"fmt"
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

func TestRefuse(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	c, err := smtp.Dial(srv.Addr())
	require.NoError(t, err)
	defer func() { _ = c.Close() }()

	srv.Refuse(550, "No thanks")
	err = send(t, c, "a@example.com", "b@example.com")
	var smtpErr *smtp.SMTPError
	require.ErrorAs(t, err, &smtpErr)
	require.Equal(t, 550, smtpErr.Code)
	require.Contains(t, smtpErr.Message, "No thanks")
	require.Empty(t, srv.Messages())

	srv.Refuse(0, "")
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	require.Len(t, srv.Messages(), 1)
}

// A delayed message is answered once the delay has passed, and Close cuts a long delay short
// (goleak in TestMain checks that its goroutine is gone).
func TestDelay(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.SetDelay(50 * time.Millisecond)
	c, err := smtp.Dial(srv.Addr())
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	start := time.Now()
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	// A refusal waits too.
	srv.Refuse(451, "Later")
	start = time.Now()
	require.Error(t, send(t, c, "a@example.com", "b@example.com"))
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	srv.Refuse(0, "")

	srv.SetDelay(time.Hour)
	done := make(chan error, 1)
	go func() { done <- send(t, c, "a@example.com", "b@example.com") }()
	// Close may run before the message is even sent; either way the send ends with an error.
	srv.Close()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("send still blocked after Close")
	}
	require.Len(t, srv.Messages(), 1)
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

func TestRefuseRecipient(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	c := dial(t, srv, "")
	for _, tc := range []struct {
		code     int
		enhanced smtp.EnhancedCode
	}{
		{550, smtp.EnhancedCode{5, 1, 1}},
		{553, smtp.EnhancedCode{5, 1, 3}},
		{452, smtp.EnhancedCode{4, 2, 2}},
		{451, smtp.EnhancedCode{4, 3, 0}},
	} {
		srv.RefuseRecipient("Refused@Example.com", tc.code, "Not\r\nnow")
		requireReply(t, send(t, c, "a@example.com", "refused@example.COM"), tc.code, tc.enhanced, "Not now")
		require.NoError(t, c.Reset(), "a refused recipient leaves the connection usable")
	}
	require.Empty(t, srv.Messages())

	// A relay delivers to the recipients it accepted and to no other.
	require.NoError(t, c.Mail("a@example.com", nil))
	require.NoError(t, c.Rcpt("reader@example.com", nil))
	require.Error(t, c.Rcpt("refused@example.com", nil))
	w, err := c.Data()
	require.NoError(t, err)
	_, err = io.Copy(w, strings.NewReader(sample))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.Equal(t, []string{"reader@example.com"}, srv.WaitForMessages(t, 1, 5*time.Second)[0].To)

	srv.RefuseRecipient("<refused@example.com>", 0, "")
	require.NoError(t, send(t, c, "a@example.com", "refused@example.com"))
	require.Len(t, srv.Messages(), 2)
	require.Equal(t, 1, srv.Connections())
}

// A 421, to RCPT TO or to DATA, is followed by the server closing the connection, through TLS
// too; the reply itself arrives whole.
func TestReply421ClosesConnection(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"", "starttls", "tls"} {
		t.Run("tls="+mode, func(t *testing.T) {
			t.Parallel()
			srv := smtptest.Start(t, smtptest.Options{TLS: mode})
			srv.RefuseRecipient("busy@example.com", 421, "Too busy")
			c := dial(t, srv, mode)
			require.NoError(t, c.Mail("a@example.com", nil))
			requireReply(t, c.Rcpt("BUSY@example.com", nil), 421, smtp.EnhancedCode{4, 3, 2}, "Too busy")
			requireClosed(t, c.Noop())
			requireSettles(t, srv, 0, 0)

			srv.Refuse(421, "Shutting down")
			c = dial(t, srv, mode)
			requireReply(t, send(t, c, "a@example.com", "b@example.com"), 421, smtp.EnhancedCode{4, 0, 0}, "Shutting down")
			requireClosed(t, c.Reset())
			requireSettles(t, srv, 0, 0)
			require.Empty(t, srv.Messages())
			require.Equal(t, 2, srv.Connections())
		})
	}
}

func TestCloseAfterAccept(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.CloseAfterAccept(true)
	for _, next := range []func(*smtp.Client) error{(*smtp.Client).Reset, (*smtp.Client).Noop, (*smtp.Client).Quit} {
		c := dial(t, srv, "")
		require.NoError(t, send(t, c, "a@example.com", "b@example.com"), "the 250 arrives")
		requireClosed(t, next(c))
	}
	require.Len(t, srv.Messages(), 3, "each message was recorded before the connection closed")

	srv.CloseAfterAccept(false)
	c := dial(t, srv, "")
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	require.NoError(t, c.Quit())
	var conns []int
	for _, m := range srv.Messages() {
		conns = append(conns, m.Conn)
	}
	require.Equal(t, []int{1, 2, 3, 4, 4}, conns)
}

// n clients hold a transaction open at once; the server must have seen all n together.
func TestMaxConversations(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	const n = 5
	var opened, finished sync.WaitGroup
	release := make(chan struct{})
	opened.Add(n)
	for range n {
		finished.Go(func() {
			c, err := smtp.Dial(srv.Addr())
			if err != nil {
				opened.Done()
				t.Error(err)
				return
			}
			defer func() { _ = c.Close() }()
			err = c.Mail("a@example.com", nil)
			opened.Done()
			if err != nil {
				t.Error(err)
				return
			}
			<-release
			if err := c.Rcpt("b@example.com", nil); err != nil {
				t.Error(err)
				return
			}
			w, err := c.Data()
			if err == nil {
				_, err = io.Copy(w, strings.NewReader(sample))
			}
			if err == nil {
				err = w.Close()
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	opened.Wait()
	// Exact without waiting: the server counts a transaction before it answers MAIL FROM.
	require.Equal(t, n, srv.MaxConversations())
	require.Equal(t, n, srv.MaxConnections())
	close(release)
	finished.Wait()
	require.Len(t, srv.WaitForMessages(t, n, 5*time.Second), n)
	requireSettles(t, srv, 0, 0)
	require.Equal(t, n, srv.Connections())
}

// A transaction ends with the reply to DATA, with RSET, or with its connection.
func TestConversationEnds(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	c := dial(t, srv, "")
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	requireSettles(t, srv, 1, 0)
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	require.NoError(t, c.Mail("a@example.com", nil))
	require.NoError(t, c.Mail("a@example.com", nil), "a second MAIL FROM restarts the same transaction")
	require.NoError(t, c.Reset())
	require.Equal(t, 1, srv.MaxConversations(), "never two at once on one connection")
	requireSettles(t, srv, 1, 0)

	require.NoError(t, c.Mail("a@example.com", nil))
	requireSettles(t, srv, 1, 1)
	require.NoError(t, c.Close())
	requireSettles(t, srv, 0, 0)
}

func TestAttempts(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.RefuseRecipient("deferred@example.com", 451, "Try later")
	srv.RefuseRecipient("gone@example.com", 550, "No such user")
	c := dial(t, srv, "")
	for range 3 {
		require.Error(t, send(t, c, "a@example.com", "Deferred@example.com"))
		require.NoError(t, c.Reset())
	}
	require.Error(t, send(t, c, "a@example.com", "gone@example.com"))
	require.NoError(t, c.Reset())
	require.NoError(t, send(t, c, "a@example.com", "ok@example.com"))

	require.Equal(t, 3, srv.Attempts("DEFERRED@example.com"))
	require.Equal(t, 1, srv.Attempts("gone@example.com"))
	require.Equal(t, 1, srv.Attempts("ok@example.com"))
	require.Equal(t, 0, srv.Attempts("never@example.com"))
}

// RefuseRecipientKeepOpen answers like RefuseRecipient, but a 421 leaves the connection open:
// the client's RSET and next message go through on it.
func TestRefuseRecipientKeepOpen(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	c := dial(t, srv, "")
	for _, tc := range []struct {
		code     int
		enhanced smtp.EnhancedCode
	}{
		{421, smtp.EnhancedCode{4, 3, 2}},
		{454, smtp.EnhancedCode{4, 3, 0}},
	} {
		srv.RefuseRecipientKeepOpen("Busy@Example.com", tc.code, "Try again later")
		require.NoError(t, c.Mail("a@example.com", nil))
		requireReply(t, c.Rcpt("busy@example.com", nil), tc.code, tc.enhanced, "Try again later")
		require.NoError(t, c.Reset(), "the connection is still open")
		require.NoError(t, send(t, c, "a@example.com", "reader@example.com"))
	}
	require.Equal(t, 2, srv.Attempts("busy@example.com"))
	require.Len(t, srv.Messages(), 2)
	require.Equal(t, 1, srv.Connections())

	// RefuseRecipient over it closes after a 421 again; code 0 accepts the address again.
	srv.RefuseRecipient("busy@example.com", 421, "Closing")
	require.NoError(t, c.Mail("a@example.com", nil))
	requireReply(t, c.Rcpt("busy@example.com", nil), 421, smtp.EnhancedCode{4, 3, 2}, "Closing")
	requireClosed(t, c.Noop())
	srv.RefuseRecipientKeepOpen("busy@example.com", 0, "")
	require.NoError(t, send(t, dial(t, srv, ""), "a@example.com", "busy@example.com"))
	require.Panics(t, func() { srv.RefuseRecipientKeepOpen("busy@example.com", 250, "") })
}

// DelayRecipient holds the reply to RCPT TO for a domain, or for one address, which wins over
// its domain; other recipients are answered at once, and Close cuts a long wait short.
func TestDelayRecipient(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	const d = 100 * time.Millisecond
	srv.DelayRecipient("Slow.Example", d)
	srv.DelayRecipient("quick@slow.example", time.Millisecond)
	srv.RefuseRecipient("full@slow.example", 452, "Mailbox full")
	c := dial(t, srv, "")
	timed := func(to string) (time.Duration, error) {
		start := time.Now()
		err := send(t, c, "a@example.com", to)
		return time.Since(start), err
	}
	took, err := timed("reader@slow.example")
	require.NoError(t, err)
	require.GreaterOrEqual(t, took, d, "the domain's delay")
	took, err = timed("full@SLOW.example")
	requireReply(t, err, 452, smtp.EnhancedCode{4, 2, 2}, "Mailbox full")
	require.GreaterOrEqual(t, took, d, "a refusal waits too")
	require.NoError(t, c.Reset())
	took, err = timed("quick@slow.example")
	require.NoError(t, err)
	require.Less(t, took, d, "the address's own delay")
	took, err = timed("reader@example.com")
	require.NoError(t, err)
	require.Less(t, took, d, "another domain")

	srv.DelayRecipient("slow.example", 0)
	took, err = timed("reader@slow.example")
	require.NoError(t, err)
	require.Less(t, took, d, "answered at once again")

	srv.DelayRecipient("stalled@example.com", time.Hour)
	require.NoError(t, c.Mail("a@example.com", nil))
	done := make(chan error, 1)
	go func() { done <- c.Rcpt("stalled@example.com", nil) }()
	require.Eventually(t, func() bool { return srv.Attempts("stalled@example.com") == 1 }, 5*time.Second, time.Millisecond)
	srv.Close()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("RCPT TO still waiting after Close")
	}
}

// MaxConversationsTo counts, per domain, the transactions with a recipient there that were open
// at once: from RCPT TO (while it waits, too) to the end of the transaction, and not at all
// when that RCPT TO is refused.
func TestMaxConversationsTo(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.DelayRecipient("slow.example", 200*time.Millisecond)
	srv.RefuseRecipient("gone@other.example", 550, "No such user")
	const n = 3
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := smtp.Dial(srv.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			defer func() { _ = c.Close() }()
			if err := send(t, c, "a@example.com", fmt.Sprintf("reader-%d@slow.example", i)); err != nil {
				t.Error(err)
			}
		})
	}
	c := dial(t, srv, "")
	require.Error(t, send(t, c, "a@example.com", "gone@other.example"))
	require.NoError(t, c.Reset())
	require.NoError(t, send(t, c, "a@example.com", "reader@other.example"))
	wg.Wait()
	require.Equal(t, n, srv.MaxConversationsTo("SLOW.example"))
	require.Equal(t, 1, srv.MaxConversationsTo("other.example"), "the refused recipient did not count")
	require.Equal(t, 0, srv.MaxConversationsTo("never.example"))
	requireSettles(t, srv, 1, 0)
	require.Equal(t, 0, srv.MaxConversationsTo("slow.example"), "ResetMax starts again from what is open")
}
