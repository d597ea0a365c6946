package smtpclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"slices"
	"strings"
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

func TestSMTPMailerHeaderInjection(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)

	// Every message has exactly these header fields, each once, whatever its subject holds.
	want := []string{"Content-Transfer-Encoding", "Content-Type", "Date", "From", "Message-Id", "Mime-Version",
		"Subject", "To", "User-Agent", "X-Mailer"}
	subjects := []string{
		"Dune\r\nBcc: evil@example.com",
		"Dune\nBcc: evil@example.com",
		"Dune\rBcc: evil@example.com",
		"Dune\r\n\r\nBcc: evil@example.com",
		"Dune\u2028Bcc: evil@example.com",
		"Dune\u2029Bcc: evil@example.com",
		"Dune\u0085Bcc: evil@example.com",
		"Dune\x00Bcc: evil@example.com",
		"Dune\vBcc: evil@example.com\f",
		"=?UTF-8?Q?Dune=0D=0ABcc:_evil@example.com?=",
		strings.Repeat("Bcc: evil@example.com ", 100),
		strings.Repeat("Bcc:evil@example.com", 100),
		strings.Repeat("Ü\r\nBcc: evil@example.com", 50),
	}
	for i, subject := range subjects {
		e := loanEmail(i)
		e.Subject = subject
		e.Body = "Hello,\r\nBcc: evil@example.com\r\n.\r\nRCPT TO:<evil@example.com>\r\n"
		require.NoError(t, m.Send(t.Context(), e))
	}
	for i, got := range srv.WaitForMessages(t, len(subjects), waitFor) {
		require.Equal(t, []string{"reader@example.com"}, got.To)
		require.NotNil(t, got.Header, "the message parses")
		var keys []string
		for k, v := range got.Header {
			keys = append(keys, k)
			require.Len(t, v, 1, k)
		}
		slices.Sort(keys)
		require.Equal(t, want, keys, "subject %q", subjects[i])
		header, _, _ := strings.Cut(string(got.Raw), "\r\n\r\n")
		for _, line := range strings.Split(header, "\r\n") {
			require.False(t, strings.HasPrefix(strings.ToLower(line), "bcc:"), "subject %q: header line %q", subjects[i], line)
			require.LessOrEqual(t, len(line), 998, "RFC 5322 line length")
		}
		wantSubject := subjects[i]
		if runes := []rune(wantSubject); len(runes) > maxSubjectRunes {
			wantSubject = string(runes[:maxSubjectRunes])
		}
		require.Equal(t, wantSubject, got.Subject, "the subject arrives as one encoded header")
	}

	// An address with anything after it is refused before dialing, and the error does not
	// repeat the address: errors reach logs and /status.
	for _, to := range []string{
		"reader@example.com\r\nBcc: evil@example.com", "reader@example.com\nBcc: evil@example.com",
		"reader@example.com, evil@example.com", "reader@example.com\u2028Bcc: evil@example.com",
	} {
		e := loanEmail(99)
		e.To = to
		err := m.Send(t.Context(), e)
		require.Error(t, err, "%q", to)
		require.NotContains(t, err.Error(), "reader@example.com")
		require.NotContains(t, err.Error(), "evil@example.com")
	}
	require.Len(t, srv.Messages(), len(subjects))
}

func TestSMTPMailerUnicodeSubject(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)

	e := loanEmail(1)
	e.Subject = "Der Zauberberg – Ünïcode"
	e.Body = "Grüße aus der Bibliothek – bis bald!\n"
	require.NoError(t, m.Send(t.Context(), e))
	got := srv.WaitForMessages(t, 1, waitFor)[0]
	require.Equal(t, e.Subject, got.Subject)
	require.Equal(t, e.Body, got.Body)

	long := loanEmail(2)
	long.Subject = "Überfällig: Der Mann ohne Eigenschaften, Band 1 und Band 2 – bitte zurückgeben"
	require.NoError(t, m.Send(t.Context(), long))
	require.Equal(t, long.Subject, srv.WaitForMessages(t, 2, waitFor)[1].Subject)
}

func TestSMTPMailerInvalidAddresses(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	m := newTestMailer(t, srv)

	for _, e := range []Email{
		{MessageID: "<a@library>", From: "not an address", To: "reader@example.com"},
		{MessageID: "<a@library>", From: "noreply@library.test", To: ""},
		{MessageID: "<a@library>", From: "noreply@library.test", To: "reader@"},
	} {
		require.Error(t, m.Send(t.Context(), e), "%+v", e)
	}
	require.Equal(t, 0, srv.Connections(), "invalid emails are rejected before dialing")
}

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

func port(t *testing.T, srv *smtptest.Server) int {
	t.Helper()
	cfg, err := ParseURL(srv.URL())
	require.NoError(t, err)
	return cfg.Port
}

func TestParseSMTPURL(t *testing.T) {
	t.Parallel()
	const secret = "Top%2FSecret%40pw" // percent-encoded "Top/Secret@pw"
	const plainSecret = "Top/Secret@pw"
	const user = "smtpUser7%40corp" // percent-encoded "smtpUser7@corp"
	for _, tc := range []struct {
		url  string
		want Config
	}{
		{"smtp://mail.example.com", Config{Host: "mail.example.com", Port: 587, TLS: "starttls"}},
		{"smtp://mail.example.com?tls=none", Config{Host: "mail.example.com", Port: 25, TLS: "none"}},
		{"smtp://mail.example.com?tls=starttls", Config{Host: "mail.example.com", Port: 587, TLS: "starttls"}},
		{"smtp://mail.example.com?tls=tls", Config{Host: "mail.example.com", Port: 465, TLS: "tls"}},
		{"smtps://mail.example.com", Config{Host: "mail.example.com", Port: 465, TLS: "tls"}},
		{"smtp://localhost:1025?tls=none", Config{Host: "localhost", Port: 1025, TLS: "none"}},
		{"smtp://[::1]:2525/?tls=none", Config{Host: "::1", Port: 2525, TLS: "none"}},
		{"smtp://library@mail.example.com:2587", Config{Host: "mail.example.com", Port: 2587, TLS: "starttls", Username: "library"}},
		{"smtp://lib%40rary:" + secret + "@mail.example.com", Config{
			Host: "mail.example.com", Port: 587, TLS: "starttls", Username: "lib@rary", Password: plainSecret,
		}},
	} {
		got, err := ParseURL(tc.url)
		require.NoError(t, err, tc.url)
		require.Equal(t, tc.want, got, tc.url)
	}

	for _, tc := range []struct{ url, wantErr string }{
		{"", "scheme"},
		{"mail.example.com:25", "SMTP_URL"},
		{"http://" + user + ":" + secret + "@mail.example.com", "scheme"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=ssl", "tls must be"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=none&tls=tls", "more than once"},
		{"smtps://" + user + ":" + secret + "@mail.example.com?tls=starttls", "smtps"},
		{"smtp://" + user + ":" + secret + "@mail.example.com:0", "port"},
		{"smtp://" + user + ":" + secret + "@mail.example.com:65536", "port"},
		{"smtp://" + user + ":" + secret + "@mail.example.com:smtp", "SMTP_URL"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=none&timeout=5s", "unknown parameter \"timeout\""},
		{"smtp://" + user + ":" + secret + "@mail.example.com/inbox", "path"},
		{"smtp://" + user + ":" + secret + "@:25", "host"},
		{"smtp://:" + secret + "@mail.example.com", "user name"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=%zz", "query"},
		{"smtp://" + user + ":Top%zz@mail.example.com", "SMTP_URL"},
	} {
		_, err := ParseURL(tc.url)
		require.Error(t, err, tc.url)
		require.ErrorContains(t, err, tc.wantErr, tc.url)
		require.ErrorContains(t, err, "SMTP_URL", tc.url)
		for _, leak := range []string{secret, plainSecret, "Top", "mail.example.com", user, "smtpUser"} {
			require.NotContains(t, err.Error(), leak, tc.url)
		}
	}
}

func TestSMTPConfigRedactsCredentials(t *testing.T) {
	t.Parallel()
	cfg, err := ParseURL("smtp://AKIA7user%40corp:hunter2-secret@mail.example.com:2525?tls=tls")
	require.NoError(t, err)
	require.Equal(t, "smtp://xxxxx:xxxxx@mail.example.com:2525?tls=tls", cfg.String())

	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("smtp", "config", cfg)
	require.Contains(t, buf.String(), `"config":{"host":"mail.example.com","port":2525,"tls":"tls","auth":true}`)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("smtp", "config", cfg)

	for _, out := range []string{
		cfg.String(), buf.String(),
		fmt.Sprint(cfg), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg),
		fmt.Sprintf("%v %+v %#v", &cfg, &cfg, &cfg),
		New(cfg, nil).cfg.String(),
	} {
		require.NotContains(t, out, "hunter2", out)
		require.NotContains(t, out, "AKIA7user", out)
	}
	require.True(t, strings.HasPrefix(Config{Host: "h", Port: 25, TLS: "none"}.String(), "smtp://h:25"))
	require.Equal(t, "smtp://xxxxx@h:25?tls=none", Config{Host: "h", Port: 25, TLS: "none", Username: "u"}.String())
}

// Errors name the message, never the recipient, even when the relay's reply quotes it: they
// reach logs and /status.
func TestErrorsLeaveOutTheRecipient(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		`the relay answered RCPT with 550 5.1.1 <Alice@Example.org>: no such user`: `the relay answered RCPT with 550 5.1.1 <[recipient]>: no such user`,
		`alice@example.org alice@example.org`:                                      `[recipient] [recipient]`,
		`451 try again`:                                                            `451 try again`,
	} {
		require.Equal(t, want, withoutAddress(text, "alice@example.org"))
	}
	require.Equal(t, "x", withoutAddress("x", ""))
}

// Errors never carry the credentials, even when the server's reply quotes them.
func TestSMTPMailerRedactsCredentials(t *testing.T) {
	t.Parallel()
	m := New(Config{Host: "h", Username: "AKIA7user", Password: "hunter2-secret"}, nil)
	err := m.redact(fmt.Errorf("535 authentication failed for AKIA7user with hunter2-secret: %w", context.Canceled))
	require.Equal(t, "535 authentication failed for [redacted] with [redacted]: context canceled", err.Error())
	plain := errors.New("421 try again later")
	require.Same(t, plain, m.redact(plain), "an error without them is kept as it is")
	require.NoError(t, m.redact(nil))
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
