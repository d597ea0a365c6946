package accounts

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/eventstore/pgstore"
	"library/internal/testkit/pgtest"
)

// statements records the SQL a pool sends, a batch as one.
type statements struct {
	mu  sync.Mutex
	sql []string
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sql = append(s.sql, data.SQL)
	return ctx
}

func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (s *statements) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.sql
	s.sql = nil
	return out
}

// A keyed payment to an account this replica keeps, on a quiet service, is one round trip to
// PostgreSQL: the append, which also tells other processes of it.
func TestAKeptAccountsPaymentIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(t))
	require.NoError(t, err)
	traced := &statements{}
	cfg.ConnConfig.Tracer = traced
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pgstore.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(store.Close)
	service := NewService(store, aggregate.Options{})

	listener, err := pgx.Connect(ctx, cfg.ConnString())
	require.NoError(t, err)
	t.Cleanup(func() { _ = listener.Close(context.Background()) })
	_, err = listener.Exec(ctx, "LISTEN library_events")
	require.NoError(t, err)
	_, err = service.ChargeFine(ctx, "alice", ChargeFine{Amount: 900, Reason: "Dune, 30 days late"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = service.Pay(ctx, "alice", Pay{Amount: 300}, aggregate.Origin{CommandID: "pay-1"})
	require.NoError(t, err)
	for { // once the first payment is told, nothing of it is left to send
		n, err := listener.WaitForNotification(ctx)
		require.NoError(t, err)
		if strings.Contains(n.Payload, "PaymentReceived") {
			break
		}
	}
	traced.take()

	_, err = service.Pay(ctx, "alice", Pay{Amount: 300}, aggregate.Origin{CommandID: "pay-2"})
	require.NoError(t, err)
	sent := traced.take()
	require.Len(t, sent, 1, "statements of one payment: %q", sent)
	n, err := listener.WaitForNotification(ctx)
	require.NoError(t, err)
	require.Equal(t, "PaymentReceived", n.Payload, "other processes are told by that statement")
	require.Empty(t, traced.take(), "and by no other")
}
