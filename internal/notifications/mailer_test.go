package notifications

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLogMailerLogsWithoutBodyOrRecipient(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	m := NewLogMailer(slogJSON(&buf))

	e := Email{
		MessageID: "<notifications.42@library>",
		From:      "noreply@library.test",
		To:        "reader@example.com",
		Subject:   "You borrowed Dune",
		Body:      "private loan details",
	}
	require.NoError(t, m.Send(t.Context(), e))
	require.NoError(t, m.Close())

	require.NotContains(t, buf.String(), "private loan details")
	require.NotContains(t, buf.String(), "reader@example.com", "no recipient address")
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line), buf.String())
	require.Equal(t, "INFO", line["level"])
	require.Equal(t, "email not sent: SMTP_URL is unset", line["msg"])
	require.Equal(t, e.MessageID, line["message_id"])
	require.NotContains(t, line, "to")
	require.Equal(t, e.Subject, line["subject"])

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.ErrorIs(t, m.Send(ctx, e), context.Canceled)
	require.NoError(t, NewLogMailer(nil).Send(t.Context(), e), "a nil logger discards")
}

// The log mailer sends nothing, so the outbox records nothing as accepted: a member's export
// lists only emails that a relay took.
func TestOutboxRecordsNoEmailTheLogMailerTook(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	lent := env.lend(t, "dune", "reader@example.org")
	o := env.outbox(t)
	o.Mailer = NewLogMailer(nil)
	require.NoError(t, o.Handle(handling(t), lent))
	recorded, err := env.accepted.ForLoans(t.Context(), []string{"loan-dune"})
	require.NoError(t, err)
	require.Empty(t, recorded, "logged, not sent: nothing accepted")
	require.Empty(t, env.srv.Messages())
}

func slogJSON(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
