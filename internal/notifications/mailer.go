package notifications

import (
	"context"
	"log/slog"
)

// Mailer sends emails: the SMTP client (package smtpmail adapts smtpclient.Client to it), or
// the log mailer. A failed Send is a *SendError, sorted by class, or ctx's error. Send may keep a connection open for the next Send; Close ends it.
// The outbox closes it once it has had nothing to send for a second, so emails that come close
// together share one SMTP connection.
// A Mailer is safe for concurrent use, though its Sends run one at a time.
type Mailer interface {
	Send(ctx context.Context, e Email) error
	Close() error
}

// NewLogMailer returns the Mailer used when SMTP_URL is unset: it sends nothing and logs each
// email at info level instead, so a development setup without a mail server still shows what
// would have gone out. The log line leaves the recipient and the body out: both are a member's
// personal data. The outbox records none of these emails as accepted, as no relay took them:
// a member's export lists only emails sent, and after a takeover one may be logged again.
func NewLogMailer(logger *slog.Logger) Mailer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return logMailer{logger: logger}
}

type logMailer struct{ logger *slog.Logger }

// Send logs e. Like the SMTP client it fails once ctx is done, so callers see the same
// contract.
func (l logMailer) Send(ctx context.Context, e Email) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.logger.LogAttrs(ctx, slog.LevelInfo, "email not sent: SMTP_URL is unset",
		slog.String("message_id", e.MessageID),
		slog.String("subject", e.Subject))
	return nil
}

func (logMailer) Close() error { return nil }

// logsOnly reports whether m is the log mailer, which sends nothing.
func logsOnly(m Mailer) bool {
	_, ok := m.(logMailer)
	return ok
}
