package processorhttp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/engine"
)

// TestMain checks that no goroutine outlived the tests: every group a test starts must be
// stopped by the time they end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// eventually polls cond until it holds or timeout passes.
func eventually(t testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not true after %v: %s", timeout, fmt.Sprintf(format, args...))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// memoryEnv is what replicas share in memory mode: the log, the checkpoints and the leases.
type memoryEnv struct {
	store  *eventstore.Memory
	cps    *processor.MemoryCheckpoints
	leases *processor.MemoryLeases
}

func newMemoryEnv() memoryEnv {
	return memoryEnv{store: eventstore.NewMemory(nil), cps: processor.NewMemoryCheckpoints(nil), leases: processor.NewMemoryLeases()}
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

// appendEvents appends n events to streams named after prefix, up to three per append. It
// returns the events in log order.
func appendEvents(t testing.TB, store eventstore.Store, prefix string, n int) []eventstore.Event {
	t.Helper()
	var out []eventstore.Event
	for i := 0; i < n; {
		k := min(3, n-i)
		batch := make([]eventstore.NewEvent, k)
		for j := range batch {
			batch[j] = eventstore.NewEvent{Type: "Happened", Data: fmt.Appendf(nil, `{"n":%d}`, i+j),
				Metadata: eventstore.Metadata{CommandID: fmt.Sprintf("%s-cmd-%d", prefix, i)}}
		}
		recorded, err := store.Append(context.Background(), fmt.Sprintf("%s-%d", prefix, i), 0, batch)
		require.NoError(t, err)
		out = append(out, recorded...)
		i += k
	}
	return out
}

// recorder is a Handler that counts what it handled; fail, when set, decides each attempt.
type recorder struct {
	fail func(ctx context.Context, e eventstore.Event, attempt int) error

	mu      sync.Mutex
	handled int
	calls   map[int64]int // attempts per position, failed or not
}

func newRecorder(fail func(ctx context.Context, e eventstore.Event, attempt int) error) *recorder {
	return &recorder{fail: fail, calls: map[int64]int{}}
}

func (r *recorder) Handle(ctx context.Context, e eventstore.Event) error {
	r.mu.Lock()
	r.calls[e.Position]++
	attempt := r.calls[e.Position]
	r.mu.Unlock()
	if r.fail != nil {
		if err := r.fail(ctx, e, attempt); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.handled++
	r.mu.Unlock()
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.handled
}

func (r *recorder) attempts(position int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[position]
}
