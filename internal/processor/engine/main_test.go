package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/pgtest"
)

// TestMain runs the tests against a throwaway PostgreSQL (or TEST_DATABASE_URL) and then checks
// that no goroutine outlived them: every group, lease, listener and proxy a test starts must be
// stopped by the time the tests end. goleak.VerifyTestMain can't be used because it calls m.Run
// itself; pgtest.Run returns after the cluster is gone, so what is left is ours.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines outlived the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testOptions are short so that retries, parking, polling and retaking a lost lease happen
// within milliseconds. Small batches, and a view's catching up in batches of twice as many,
// make every test cross several batches.
func testOptions() processor.Options {
	return processor.Options{BatchSize: 4, CatchUpBatchSize: 8, PollInterval: 50 * time.Millisecond,
		Retry: processor.Backoff{Attempts: 3, First: 10 * time.Millisecond, Max: 20 * time.Millisecond}, RetakeDelay: 20 * time.Millisecond,
		DropAfter: 200 * time.Millisecond}
}

func positionsOf(events []eventstore.Event) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Position
	}
	return out
}

// memoryView is a view model in memory, of version 1: each build's rows and its checkpoint
// move together under memdriver.Checkpoints.SaveWith, as a PostgreSQL view model's do in one
// transaction. Several groups may share one memoryView, as replicas share one database.
type memoryView struct {
	cps *memdriver.Checkpoints

	mu      sync.Mutex
	builds  []string                      // the names of the builds opened, in order
	rows    map[string][]int64            // by build: the positions applied, in order
	applied map[int64]int                 // how often each position was applied, over all builds
	fenced  int                           // Apply calls refused because another holder moved the checkpoint
	batches []int                         // how many events each Apply call that was not refused applied
	meta    map[int64]eventstore.Metadata // each applied event's metadata, by position
}

func newMemoryView(cps *memdriver.Checkpoints) *memoryView {
	return &memoryView{cps: cps, rows: map[string][]int64{}, applied: map[int64]int{}, meta: map[int64]eventstore.Metadata{}}
}

func (v *memoryView) Versions() processor.Versions { return processor.Versions{Code: 1, ReadsFrom: 1} }

func (v *memoryView) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !slices.Contains(v.builds, b.Name()) {
		v.builds = append(v.builds, b.Name())
	}
	return memoryViewBuild{view: v, name: b.Name()}, nil
}

// memoryViewBuild is one build of a memoryView.
type memoryViewBuild struct {
	view *memoryView
	name string
}

func (b memoryViewBuild) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	v := b.view
	err := v.cps.SaveWith(ctx, b.name, from, to, func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		for _, e := range events {
			v.rows[b.name] = append(v.rows[b.name], e.Position)
			v.applied[e.Position]++
			v.meta[e.Position] = e.Metadata
		}
		v.batches = append(v.batches, len(events))
	})
	if errors.Is(err, processor.ErrFenced) {
		v.mu.Lock()
		v.fenced++
		v.mu.Unlock()
	}
	return err
}

// snapshot returns the rows of the newest build opened, how often each position was applied
// over all builds, and how many builds were opened after the first.
func (v *memoryView) snapshot() (rows []int64, applied map[int64]int, rebuilds int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	applied = make(map[int64]int, len(v.applied))
	for k, n := range v.applied {
		applied[k] = n
	}
	if len(v.builds) == 0 {
		return nil, applied, 0
	}
	return slices.Clone(v.rows[v.builds[len(v.builds)-1]]), applied, len(v.builds) - 1
}

// viewModel is a view model processor that runs view.
func viewModel(name string, view processor.View) processor.Processor {
	return processor.Processor{Name: name, Kind: processor.KindViewModel, View: view}
}

// parkedOf returns a processor's parked events, in log order.
func parkedOf(t testing.TB, cps processor.Checkpoints, name string) []processor.Parked {
	t.Helper()
	parked, err := cps.ListParked(context.Background(), name, 0)
	require.NoError(t, err)
	return parked
}

// startGroup makes and starts a group, stopped when the test ends.
func startGroup(t testing.TB, cfg Config, processors ...processor.Processor) *Group {
	t.Helper()
	g, err := NewGroup(cfg, processors...)
	require.NoError(t, err)
	g.Start(context.Background())
	t.Cleanup(func() { stopGroup(t, g) })
	return g
}

// stopGroup stops g and fails the test when that is not prompt. Stopping twice is fine.
func stopGroup(t testing.TB, g *Group) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	require.NoError(t, g.Stop(ctx))
	return time.Since(start)
}

// memoryConfig is a replica in memory mode. Groups that share leases, checkpoints and store
// behave as replicas sharing a database.
func memoryConfig(store eventstore.Store, cps processor.Checkpoints, leases processor.Leases) Config {
	return Config{Store: store, Checkpoints: cps, Leases: leases, Logger: discardLogger(), Options: testOptions()}
}

// raiseTo sets a to n if n is larger, however many goroutines do it at once.
func raiseTo(a *atomic.Int64, n int64) {
	for {
		m := a.Load()
		if n <= m || a.CompareAndSwap(m, n) {
			return
		}
	}
}
