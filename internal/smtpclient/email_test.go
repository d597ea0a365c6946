package smtpclient

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

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
