package processorhttp

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/engine"
	"library/internal/processor/memdriver"
)

// TestMain checks that no goroutine outlived the tests: every group a test starts must be
// stopped by the time they end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// memoryEnv is what replicas share in memory mode: the log, the checkpoints and the leases.
type memoryEnv struct {
	store  *eventstore.Memory
	cps    *memdriver.Checkpoints
	leases *memdriver.Leases
}

func newMemoryEnv() memoryEnv {
	return memoryEnv{store: eventstore.NewMemory(nil), cps: memdriver.NewCheckpoints(nil), leases: memdriver.NewLeases()}
}

// config is a replica in memory mode, with options short enough that retries and parking
// happen within milliseconds.
func (env memoryEnv) config() engine.Config {
	return engine.Config{Store: env.store, Checkpoints: env.cps, Leases: env.leases, Logger: discardLogger(),
		Options: processor.Options{BatchSize: 4, PollInterval: 50 * time.Millisecond, RetakeDelay: 20 * time.Millisecond,
			Retry: processor.Backoff{Attempts: 3, First: 10 * time.Millisecond, Max: 20 * time.Millisecond}}}
}

func saga(name string, h processor.Handler) processor.Processor {
	return processor.Processor{Name: name, Kind: processor.KindSaga, Handler: h}
}

func outbox(name string, h processor.Handler) processor.Processor {
	return processor.Processor{Name: name, Kind: processor.KindOutbox, Handler: h}
}

// startGroup makes and starts a group, stopped when the test ends.
func startGroup(t testing.TB, cfg engine.Config, processors ...processor.Processor) *engine.Group {
	t.Helper()
	g, err := engine.NewGroup(cfg, processors...)
	require.NoError(t, err)
	g.Start(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, g.Stop(ctx))
	})
	return g
}
