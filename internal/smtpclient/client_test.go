package smtpclient

import (
	"encoding/base64"
	"fmt"
	"net/mail"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

const waitFor = 10 * time.Second

// newTestMailer returns a mailer configured from srv's URL, as SMTP_URL would configure it.
func newTestMailer(t *testing.T, srv *smtptest.Server) *Client {
	t.Helper()
	cfg, err := ParseURL(srv.URL())
	require.NoError(t, err)
	cfg.TLSConfig = srv.ClientTLSConfig()
	cfg.Timeout = waitFor
	m := New(cfg, nil)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func loanEmail(n int) Email {
	return Email{
		MessageID: fmt.Sprintf("<notifications.%d@library>", n),
		From:      "Library <noreply@library.test>",
		To:        "reader@example.com",
		Subject:   "You borrowed Dune",
		Body:      "Hello,\n\nplease bring Dune back by 2026-03-01.\n",
	}
}

func TestSMTPMailerDeliversMessage(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)

	e := loanEmail(42)
	require.NoError(t, m.Send(t.Context(), e))

	got := srv.WaitForMessages(t, 1, waitFor)[0]
	require.Equal(t, "noreply@library.test", got.From)
	require.Equal(t, []string{"reader@example.com"}, got.To)
	require.Equal(t, "<notifications.42@library>", got.MessageID)
	require.Len(t, got.Header["Message-Id"], 1)
	require.Equal(t, e.Subject, got.Subject)
	require.Equal(t, e.Body, got.Body)

	from, err := mail.ParseAddress(got.Header.Get("From"))
	require.NoError(t, err)
	require.Equal(t, mail.Address{Name: "Library", Address: "noreply@library.test"}, *from)
	to, err := mail.ParseAddress(got.Header.Get("To"))
	require.NoError(t, err)
	require.Equal(t, "reader@example.com", to.Address)
	date, err := got.Header.Date()
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), date, time.Minute)
	require.Contains(t, got.Header.Get("Content-Type"), "text/plain")
	require.Contains(t, got.Header.Get("Content-Type"), "UTF-8")
}

func TestSMTPMailerMessageIDWithoutBrackets(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)

	e := loanEmail(7)
	e.MessageID = "notifications.7@library"
	require.NoError(t, m.Send(t.Context(), e))
	require.Equal(t, "<notifications.7@library>", srv.WaitForMessages(t, 1, waitFor)[0].MessageID)

	for _, bad := range []string{"<>", "<a b@library>", "<a@library>\r\nBcc: x@example.com", "<ü@library>"} {
		e.MessageID = bad
		require.Error(t, m.Send(t.Context(), e), "Message-ID %q", bad)
	}
}

func TestSMTPMailerBatchUsesOneConnection(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)

	for i := range 3 {
		require.NoError(t, m.Send(t.Context(), loanEmail(i)))
	}
	require.NoError(t, m.Close())
	msgs := srv.WaitForMessages(t, 3, waitFor)
	require.Equal(t, 1, srv.Connections())
	for i, got := range msgs {
		require.Equal(t, 1, got.Conn)
		require.Equal(t, fmt.Sprintf("<notifications.%d@library>", i), got.MessageID)
	}

	require.NoError(t, m.Send(t.Context(), loanEmail(3)))
	require.Equal(t, 2, srv.WaitForMessages(t, 4, waitFor)[3].Conn)
	require.Equal(t, 2, srv.Connections())
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "a second Close has nothing to close")
}

func TestSMTPMailerTLS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts smtptest.Options
	}{
		{"starttls", smtptest.Options{TLS: "starttls"}},
		{"implicit tls", smtptest.Options{TLS: "tls"}},
		{"starttls with auth", smtptest.Options{TLS: "starttls", Username: "library", Password: "p@ss w0rd/ü"}},
		{"implicit tls with auth", smtptest.Options{TLS: "tls", Username: "library", Password: "s3cret"}},
		{"plain text with auth on localhost", smtptest.Options{Username: "library", Password: "s3cret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := smtptest.Start(t, tc.opts)
			m := newTestMailer(t, srv)
			require.NoError(t, m.Send(t.Context(), loanEmail(1)))
			require.NoError(t, m.Send(t.Context(), loanEmail(2)))
			require.NoError(t, m.Close())
			require.Len(t, srv.WaitForMessages(t, 2, waitFor), 2)
			require.Equal(t, 1, srv.Connections())
		})
	}
}

func TestSMTPMailerWrongPassword(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t, smtptest.Options{TLS: "starttls", Username: "library", Password: "right-password"})
	cfg, err := ParseURL(srv.URL())
	require.NoError(t, err)
	const wrong = "Wr0ng-Pa55word"
	cfg.Password = wrong
	cfg.TLSConfig = srv.ClientTLSConfig()
	m := New(cfg, nil)
	t.Cleanup(func() { _ = m.Close() })

	err = m.Send(t.Context(), loanEmail(1))
	require.Error(t, err)
	require.Contains(t, err.Error(), "535", "the server's reply is kept")
	require.NotContains(t, err.Error(), wrong)
	require.NotContains(t, err.Error(), base64.StdEncoding.EncodeToString([]byte("\x00library\x00"+wrong)))
	require.NotContains(t, fmt.Sprintf("%+v", err), wrong)
	require.Empty(t, srv.Messages())
}

func TestSMTPMailerRequiresSTARTTLS(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t) // offers no STARTTLS
	m := New(Config{Host: "127.0.0.1", Port: port(t, srv), TLS: TLSStartTLS, Timeout: waitFor}, nil)
	err := m.Send(t.Context(), loanEmail(1))
	require.ErrorContains(t, err, "STARTTLS")
	require.NoError(t, m.Close())
	require.Empty(t, srv.Messages())
}

func TestSMTPMailerRefusedMessage(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)

	require.NoError(t, m.Send(t.Context(), loanEmail(1)))
	srv.Refuse(550, "Mailbox unavailable")
	err := m.Send(t.Context(), loanEmail(2))
	require.ErrorContains(t, err, "550")
	require.ErrorContains(t, err, "Mailbox unavailable")
	se, ok := IsSendError(err)
	require.True(t, ok, "%T", err)
	require.Equal(t, Permanent, se.Class)
	require.Equal(t, StepData, se.Step)
	require.Equal(t, 550, se.Code)

	srv.Refuse(0, "")
	require.NoError(t, m.Send(t.Context(), loanEmail(3)))
	msgs := srv.WaitForMessages(t, 2, waitFor)
	require.Len(t, msgs, 2)
	require.Equal(t, "<notifications.3@library>", msgs[1].MessageID)
	require.Equal(t, 1, msgs[1].Conn, "a clean refusal leaves the connection usable")
}

func port(t *testing.T, srv *smtptest.Server) int {
	t.Helper()
	cfg, err := ParseURL(srv.URL())
	require.NoError(t, err)
	return cfg.Port
}
