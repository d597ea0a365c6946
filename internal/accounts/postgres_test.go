package accounts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// replicas returns n services on one fresh database, each with its own pool and store, as n
// replicas of the service would be.
func replicas(t *testing.T, n int) ([]*Service, *pgstore.Postgres) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	services := make([]*Service, n)
	var store *pgstore.Postgres
	for i := range services {
		cfg, err := pgxpool.ParseConfig(url)
		require.NoError(t, err)
		cfg.MaxConns = 25
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		require.NoError(t, err)
		t.Cleanup(pool.Close)
		store = pgstore.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
		t.Cleanup(store.Close)
		services[i] = NewService(store, aggregate.Options{})
	}
	return services, store
}

// Fifty requests with one Idempotency-Key, at once, across two replicas: one payment is
// recorded, and all fifty get the same answer.
func TestPostgresConcurrentPaymentsWithOneKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	services, store := replicas(t, 2)
	_, err := services[0].ChargeFine(ctx, "alice", ChargeFine{Amount: 300, Reason: "Dune, 10 days late"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = services[0].ChargeFine(ctx, "alice", ChargeFine{Amount: 300, Reason: "Neuromancer, 10 days late"}, aggregate.Origin{})
	require.NoError(t, err)

	const clients = 50
	answers := make([]string, clients)
	replayed := make([]bool, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			result, err := services[i%2].Pay(ctx, "alice", Pay{Amount: 300}, aggregate.Origin{CommandID: "7b6f0e1c-pay-dune"})
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			b, _ := json.Marshal(result)
			answers[i], replayed[i] = string(b), result.Replayed
		})
	}
	wg.Wait()

	for i := range answers {
		require.Equal(t, answers[0], answers[i], "client %d got another answer", i)
	}
	firsts := 0
	for _, r := range replayed {
		if !r {
			firsts++
		}
	}
	require.Equal(t, 1, firsts, "exactly one request ran the command")

	events, err := store.ReadStream(ctx, "account-alice", 0)
	require.NoError(t, err)
	require.Equal(t, 1, countType(events, "PaymentReceived"))
	account, _, err := services[1].Get(ctx, "alice")
	require.NoError(t, err)
	require.Equal(t, int64(300), account.Balance)
}

// Fifty requests with fifty keys on one stream, at once, across two replicas: fifty events at
// versions 1 to 50, no gap, none lost to a conflict.
func TestPostgresConcurrentCommandsOnOneStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	services, store := replicas(t, 2)

	const clients = 50
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			fine := ChargeFine{Amount: 100, Reason: fmt.Sprintf("fine %d", i)}
			result, err := services[i%2].ChargeFine(ctx, "bob", fine, aggregate.Origin{CommandID: fmt.Sprintf("key-%d", i)})
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			if result.Replayed || len(result.Events) != 1 {
				t.Errorf("client %d: %+v", i, result)
			}
		})
	}
	wg.Wait()

	events, err := store.ReadStream(ctx, "account-bob", 0)
	require.NoError(t, err)
	require.Len(t, events, clients)
	keys := map[string]bool{}
	for i, e := range events {
		require.Equal(t, int64(i+1), e.Version)
		require.Equal(t, "FineCharged", e.Type)
		keys[e.Metadata.CommandID] = true
	}
	require.Len(t, keys, clients, "each command recorded once")
	account, _, err := services[0].Get(ctx, "bob")
	require.NoError(t, err)
	require.Equal(t, int64(clients*100), account.Balance)
}

func countType(events []eventstore.Event, typ string) int {
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}
