package smtpclient

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

// A relay that takes MAIL FROM and then refuses one recipient for now, with a 454 or a 421
// after which it keeps the connection, or stalls on that recipient past the timeout, refuses
// that email for now (Temporary), not all mail: the next email goes, over the same connection
// when the relay kept it. A 421 after which it hangs up is the relay going down (RelayDown).
func TestSMTPMailerSortsFailuresThatFollowOneRecipient(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.RefuseRecipientKeepOpen("limited@example.org", 454, "4.7.0 rate limit for this domain, try again later")
	srv.RefuseRecipientKeepOpen("busy@example.org", 421, "4.7.0 try again later")
	srv.DelayRecipient("stalled@example.org", time.Hour)
	srv.RefuseRecipient("closing@example.org", 421, "closing")
	cfg, err := ParseURL(srv.URL())
	require.NoError(t, err)
	cfg.Timeout = 300 * time.Millisecond
	m := New(cfg, nil)
	t.Cleanup(func() { _ = m.Close() })

	require.NoError(t, m.Send(t.Context(), emailTo(1, "reader@example.org")))
	se := requireSendError(t, m.Send(t.Context(), emailTo(2, "limited@example.org")), Temporary, StepRcpt, 454)
	require.Equal(t, "454", se.Reason)
	require.Contains(t, se.Text, "rate limit for this domain", "the relay's reply")
	require.NotContains(t, se.Text, "limited@example.org")
	se = requireSendError(t, m.Send(t.Context(), emailTo(3, "busy@example.org")), Temporary, StepRcpt, 421)
	require.Equal(t, "421", se.Reason)
	require.NoError(t, m.Send(t.Context(), emailTo(4, "reader@example.org")))
	require.Equal(t, 1, srv.Connections(), "the relay kept the connection through both refusals")

	start := time.Now()
	se = requireSendError(t, m.Send(t.Context(), emailTo(5, "stalled@example.org")), Temporary, StepRcpt, 0)
	require.Equal(t, "timeout", se.Reason)
	require.Less(t, time.Since(start), 5*time.Second, "given up after the timeout")
	require.NoError(t, m.Send(t.Context(), emailTo(6, "reader@example.org")))
	require.Equal(t, 2, srv.Connections(), "the stalled connection was dropped: its state is unknown")

	se = requireSendError(t, m.Send(t.Context(), emailTo(7, "closing@example.org")), RelayDown, StepRcpt, 421)
	require.Equal(t, "421", se.Reason)
	require.Contains(t, se.Text, "closed the connection")
	require.Equal(t, "the relay answered RCPT with 421 (relayDown)", se.PublicText())

	require.Len(t, srv.WaitForMessages(t, 3, waitFor), 3)
	require.Equal(t, 1, srv.Attempts("limited@example.org"))
	require.Equal(t, 1, srv.Attempts("stalled@example.org"))
}
