package smtpclient

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

// requireSendError checks that err is a *SendError of the given class, step and reply code,
// and returns a copy of it.
func requireSendError(t *testing.T, err error, class FailureClass, step string, code int) SendError {
	t.Helper()
	se, ok := IsSendError(err)
	require.True(t, ok, "want a *SendError, got %T: %v", err, err)
	require.Equal(t, class, se.Class, se.Text)
	require.Equal(t, step, se.Step, se.Text)
	require.Equal(t, code, se.Code, se.Text)
	return *se
}

func emailTo(n int, to string) Email {
	e := loanEmail(n)
	e.To = to
	return e
}

// The relay's 250 to DATA makes an email sent, whatever fails after it: a relay that closes
// the connection right after accepting (one message per connection) gets each email once.
func TestSMTPMailerAcceptedThenDropped(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.CloseAfterAccept(true)
	m := newTestMailer(t, srv)
	for i := range 5 {
		require.NoError(t, m.Send(t.Context(), loanEmail(i)), "accepted, then the RSET after it failed")
	}
	msgs := srv.WaitForMessages(t, 5, waitFor)
	require.Len(t, msgs, 5, "each email once")
	require.Equal(t, 5, srv.Connections(), "a new connection for each, the old one being gone")
}

// A 5xx to RCPT refuses the email for good: Permanent, with the relay's reply and without the
// address, and the connection stays usable for the next email.
func TestSMTPMailerPermanentRefusal(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.RefuseRecipient("gone@example.org", 550, "<gone@example.org>: no such user here")
	m := newTestMailer(t, srv)
	err := m.Send(t.Context(), emailTo(1, "gone@example.org"))
	se := requireSendError(t, err, Permanent, StepRcpt, 550)
	require.Equal(t, "5xx", se.Reason)
	require.Contains(t, se.Text, "5.1.1")
	require.Contains(t, se.Text, "no such user here", "the relay's reply")
	require.NotContains(t, se.Text, "gone@example.org", "not the address")
	require.Equal(t, 1, srv.Attempts("gone@example.org"), "tried once")

	require.NoError(t, m.Send(t.Context(), emailTo(2, "here@example.org")))
	require.Equal(t, 1, srv.Connections(), "the refusal left the connection usable")

	bad := loanEmail(3)
	bad.To = "not an address"
	requireSendError(t, m.Send(t.Context(), bad), Permanent, StepMessage, 0)
}

// A 4xx to RCPT or to the message refuses the email for now: Temporary.
func TestSMTPMailerTemporaryRefusal(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	for _, code := range []int{450, 451, 452} {
		addr := fmt.Sprintf("full-%d@example.org", code)
		srv.RefuseRecipient(addr, code, "try again later")
		m := newTestMailer(t, srv)
		se := requireSendError(t, m.Send(t.Context(), emailTo(code, addr)), Temporary, StepRcpt, code)
		require.Equal(t, "4xx", se.Reason)
	}
	srv.Refuse(451, "greylisted, come back later")
	m := newTestMailer(t, srv)
	requireSendError(t, m.Send(t.Context(), emailTo(1, "reader@example.org")), Temporary, StepData, 451)
	require.Empty(t, srv.Messages())
}

// A relay that can't take mail at all: a 421 (it closes the connection), nobody listening, a
// refused login. RelayDown, whatever the email; after a 421 the next send dials again.
func TestSMTPMailerRelayDown(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.RefuseRecipient("reader@example.org", 421, "too busy, closing")
	m := newTestMailer(t, srv)
	se := requireSendError(t, m.Send(t.Context(), emailTo(1, "reader@example.org")), RelayDown, StepRcpt, 421)
	require.Equal(t, "421", se.Reason)
	srv.RefuseRecipient("reader@example.org", 0, "")
	require.NoError(t, m.Send(t.Context(), emailTo(2, "reader@example.org")))
	require.Equal(t, 2, srv.Connections(), "the 421 closed the first connection")

	srv.Refuse(421, "shutting down")
	requireSendError(t, m.Send(t.Context(), emailTo(3, "reader@example.org")), RelayDown, StepData, 421)

	locked := smtptest.Start(t, smtptest.Options{Username: "library", Password: "right"})
	cfg, err := ParseURL(locked.URL())
	require.NoError(t, err)
	cfg.Password, cfg.Timeout = "wrong", waitFor
	wrong := New(cfg, nil)
	se = requireSendError(t, wrong.Send(t.Context(), loanEmail(4)), RelayDown, StepConnect, 0)
	require.Equal(t, "auth", se.Reason)

	gone := smtptest.Start(t)
	cfg, err = ParseURL(gone.URL())
	require.NoError(t, err)
	gone.Close()
	se = requireSendError(t, New(cfg, nil).Send(t.Context(), loanEmail(5)), RelayDown, StepConnect, 0)
	require.Equal(t, "connect", se.Reason)
}

// A relay that does not answer in time is down.
func TestSMTPMailerTimeoutIsRelayDown(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	cfg, err := ParseURL(srv.URL())
	require.NoError(t, err)
	cfg.Timeout = 200 * time.Millisecond
	m := New(cfg, nil)
	t.Cleanup(func() { _ = m.Close() })
	srv.SetDelay(time.Minute)
	se := requireSendError(t, m.Send(context.Background(), loanEmail(1)), RelayDown, StepData, 0)
	require.Equal(t, "timeout", se.Reason)
}

// Sends at once use connections of their own, one conversation each, and the connections are
// kept for the sends that follow.
func TestSMTPMailerPool(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.SetDelay(100 * time.Millisecond) // so that the sends overlap
	m := newTestMailer(t, srv)
	const senders = 6
	for round := range 2 {
		var wg sync.WaitGroup
		errs := make([]error, senders)
		for i := range senders {
			wg.Go(func() { errs[i] = m.Send(t.Context(), loanEmail(round*senders+i)) })
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
	}
	require.Len(t, srv.WaitForMessages(t, 2*senders, waitFor), 2*senders)
	require.Equal(t, senders, srv.MaxConversations(), "every send in its own conversation, all at once")
	require.Equal(t, senders, srv.Connections(), "the second round reused the first round's connections")
}

// SMTP_MAX_RATE spaces the sends out, however many run at once.
func TestSMTPMailerMaxRate(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	cfg, err := ParseURL(srv.URL())
	require.NoError(t, err)
	cfg.MaxRate = 20 // one every 50ms
	m := New(cfg, nil)
	t.Cleanup(func() { _ = m.Close() })
	const sends = 6
	start := time.Now()
	var wg sync.WaitGroup
	for i := range sends {
		wg.Go(func() { require.NoError(t, m.Send(t.Context(), loanEmail(i))) })
	}
	wg.Wait()
	msgs := srv.WaitForMessages(t, sends, waitFor)
	// The limiter lets the first through at once and one every 50ms after it, however many
	// wait: the last can't arrive sooner than 250ms after the sends began.
	last := msgs[len(msgs)-1].Received
	require.GreaterOrEqual(t, last.Sub(start), 240*time.Millisecond, "six sends at 20 a second took %v", last.Sub(start))
}
