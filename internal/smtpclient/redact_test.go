package smtpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
