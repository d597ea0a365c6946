package smtptest_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

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

// A held domain's RCPTs get no answer until released; other recipients are answered meanwhile.
func TestHoldRecipient(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	release := srv.HoldRecipient("held.example")
	held := dial(t, srv, "")
	require.NoError(t, held.Mail("a@example.com", nil))
	done := make(chan error, 1)
	go func() { done <- held.Rcpt("reader@Held.example", nil) }()
	require.Eventually(t, func() bool { return srv.Attempts("reader@held.example") == 1 }, 5*time.Second, time.Millisecond)
	require.NoError(t, send(t, dial(t, srv, ""), "a@example.com", "reader@example.com"), "another domain goes by")
	select {
	case err := <-done:
		t.Fatalf("a held RCPT was answered before its release: %v", err)
	default:
	}
	release()
	release() // a second call changes nothing
	require.NoError(t, <-done)
}
