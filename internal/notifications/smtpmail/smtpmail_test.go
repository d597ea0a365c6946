package smtpmail

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/notifications"
	"library/internal/smtpclient"
	"library/internal/testkit/smtptest"
)

const waitFor = 10 * time.Second

func newMailer(t *testing.T, srv *smtptest.Server) Mailer {
	t.Helper()
	cfg, err := smtpclient.ParseURL(srv.URL())
	require.NoError(t, err)
	cfg.TLSConfig, cfg.Timeout, cfg.MaxPerDomain = srv.ClientTLSConfig(), waitFor, 3
	m := New(smtpclient.New(cfg, nil))
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// The outbox's email reaches the relay as it was given, and the client's limit per domain is
// the Mailer's.
func TestMailerSendsTheEmailAsGiven(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newMailer(t, srv)
	e := notifications.Email{MessageID: "<notifications.1.x.i@library.test>", From: "Library <library@library.test>",
		To: "reader@example.org", Subject: "You borrowed Dune", Body: "Hello,\n\nyou borrowed Dune.\n"}
	require.NoError(t, m.Send(t.Context(), e))
	got := srv.WaitForMessages(t, 1, waitFor)[0]
	require.Equal(t, e.MessageID, got.MessageID)
	require.Equal(t, e.Subject, got.Subject)
	require.Equal(t, []string{"reader@example.org"}, got.To)
	require.Equal(t, "library@library.test", got.From)
	require.Contains(t, got.Body, "you borrowed Dune.")
	require.Equal(t, 3, m.MaxPerDomain())
}

// Each of smtpclient's failures is told to the outbox in its class, with its reason, reply
// code and texts, and the client's own error inside; a context that ended is returned as it is.
func TestMailerTellsFailuresClassForClass(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.RefuseRecipient("gone@example.org", 550, "5.1.1 no such user")
	srv.RefuseRecipientKeepOpen("full@example.org", 452, "4.2.2 mailbox full")
	m := newMailer(t, srv)
	send := func(ctx context.Context, n int, to string) error {
		return m.Send(ctx, notifications.Email{MessageID: "<n." + string(rune('0'+n)) + "@library.test>",
			From: "library@library.test", To: to, Subject: "s", Body: "b"})
	}

	for _, tc := range []struct {
		to     string
		class  notifications.FailureClass
		code   int
		reason string
	}{
		{"gone@example.org", notifications.Permanent, 550, "5xx"},
		{"full@example.org", notifications.Temporary, 452, "4xx"},
		{"not an address", notifications.Permanent, 0, "address"},
	} {
		err := send(t.Context(), 1, tc.to)
		var se *notifications.SendError
		require.True(t, errors.As(err, &se), "%s: %v", tc.to, err)
		require.Equal(t, tc.class, se.Class, tc.to)
		require.Equal(t, tc.code, se.Code, tc.to)
		require.Equal(t, tc.reason, se.Reason, tc.to)
		inner, ok := smtpclient.IsSendError(err)
		require.True(t, ok, "the client's error is inside")
		require.Equal(t, inner.Error(), se.Error())
		require.Equal(t, inner.PublicText(), se.PublicText())
		require.NotContains(t, se.Error()+se.PublicText(), tc.to)
	}

	srv.Close()
	err := send(t.Context(), 2, "reader@example.org")
	var se *notifications.SendError
	require.True(t, errors.As(err, &se), "%v", err)
	require.Equal(t, notifications.RelayDown, se.Class)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = send(ctx, 3, "reader@example.org")
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.As(err, &se), "not a failure the mailer sorted")
}

// The classes keep smtpclient's names: the metrics label failures by them.
func TestClassesKeepTheirNames(t *testing.T) {
	t.Parallel()
	for _, c := range []smtpclient.FailureClass{smtpclient.Permanent, smtpclient.Temporary, smtpclient.RelayDown} {
		require.Equal(t, string(c), string(class(c)))
	}
}
