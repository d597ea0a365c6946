package kiosk_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"library/internal/app"
	"library/internal/sip2"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/sipclient"
	"library/internal/testkit/syncbuf"
)

// A terminal's password, a member's PIN (right or wrong) and their card never appear in the
// service's log, at any level, nor in its spans, whatever the kiosk sends; each message is a
// span that names its command.
func TestKiosksSecretsNeverShowInTheLog(t *testing.T) {
	t.Parallel()
	// Eight digits or more (a PIN's longest), so that none of them is a port, a duration or a
	// position that a log line shows by chance; and looked for as whole numbers, which a field
	// id before them ("AD") does not hide.
	const card, pin, wrongPIN = "2736451908", "84629173", "51739264"
	cfg := apitest.FastBackground(app.Config{DatabaseURL: pgtest.NewDatabase(t), ReplicaID: "secrets"})
	cfg.SIP.Addr = "127.0.0.1:0"
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	cfg.Tuning.TracerProvider = tp
	var logs syncbuf.Buffer
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	logger := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&logs, debug), slog.NewJSONHandler(&logs, debug)))
	service := apitest.Launch(t, cfg, logger)
	password := apitest.AddTerminal(t, cfg, "kiosk-1")
	api := service.API("postgres")
	apitest.AddCopy(t, api, "dune", "Dune", "31234000000017")
	apitest.GiveCard(t, api, "m1", card, pin)

	ctx := t.Context()
	c, err := sipclient.Dial(ctx, service.SIP, sip2.Framing{})
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	_, err = c.Send(ctx, sipclient.Login("kiosk-1", password+"x"))
	require.NoError(t, err)
	k := apitest.DialKiosk(t, service.SIP, "kiosk-1", password)
	now := time.Now()
	k.Send(sipclient.PatronStatus(inst, card, wrongPIN, "001", now))
	k.Send(sipclient.PatronInformation(inst, card, pin, "001", now))
	out := k.Send(sipclient.Checkout(inst, card, pin, "31234000000017", now, false))
	require.Equal(t, "1", out.FixedField(sip2.OK), out.Value("AF"))
	k.Send(sipclient.FeePaid(inst, card, pin, "f", "1.00", "EUR", now))
	_, err = k.SendRaw(ctx, []byte("11NN"+card+pin))
	require.NoError(t, err)

	service.Stop()
	all := logs.String()
	require.Contains(t, all, "terminal logged in", "the log was written")
	var checkouts int
	for _, span := range spans.GetSpans() {
		if span.Name == "SIP checkout" && slices.Contains(span.Attributes, attribute.String("sip.command", "11")) {
			checkouts++
		}
		for _, a := range span.Attributes {
			all += " " + a.Value.String()
		}
	}
	assert.Equal(t, 1, checkouts, "a span for the checkout, naming its command")
	for name, secret := range map[string]string{"the terminal's password": password, "the PIN": pin, "a wrong PIN": wrongPIN, "the card": card} {
		assert.NotRegexp(t, `(^|[^0-9])`+secret+`($|[^0-9])`, all, "%s is in the log or a span", name)
	}
}
