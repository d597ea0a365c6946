package timers

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// concurrentFirer fires timers and counts how many fire at once. Each fire waits, up to
// hold, until want fires have been under way together in this phase: at once when the loop
// lets that many run together, never when it doesn't.
type concurrentFirer struct {
	mu      sync.Mutex
	hold    time.Duration
	want    int
	running int
	most    int
	fired   []string
	spans   [][2]time.Time // each fire's start and end, in the order they ended
	changed chan struct{}  // closed and replaced whenever running changes
}

func newConcurrentFirer() *concurrentFirer {
	return &concurrentFirer{changed: make(chan struct{})}
}

func (f *concurrentFirer) Fire(ctx context.Context, t processor.Timer) error {
	began := time.Now()
	f.mu.Lock()
	f.running++
	f.most = max(f.most, f.running)
	f.signal()
	hold := f.hold
	f.mu.Unlock()
	deadline := time.NewTimer(hold)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		enough, changed := f.most >= f.want, f.changed
		f.mu.Unlock()
		if enough {
			break
		}
		select {
		case <-changed:
			continue
		case <-deadline.C:
		case <-ctx.Done():
		}
		break
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running--
	f.fired = append(f.fired, t.Key)
	f.spans = append(f.spans, [2]time.Time{began, time.Now()})
	f.signal()
	return nil
}

// signal tells the waiting fires that running changed. The caller holds f.mu.
func (f *concurrentFirer) signal() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// expect starts a phase: fires wait up to hold for want at once, and the most seen starts
// again.
func (f *concurrentFirer) expect(want int, hold time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.want, f.hold, f.most = want, hold, 0
}

func (f *concurrentFirer) spansSoFar() [][2]time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][2]time.Time(nil), f.spans...)
}

func (f *concurrentFirer) firedAndMost() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.fired), f.most
}

// While the log grows (commands are being written), a loop that may fire several timers at once
// fires one at a time and rests after each fire nine times as long as it took (at most
// maxGiveWayRest), leaving the
// cores and the database to the commands; once it stops growing, several at once again.
func TestTimersFireOneAtATimeWhileTheLogGrows(t *testing.T) {
	t.Parallel()
	store := memdriver.NewCheckpoints(nil)
	firer := newConcurrentFirer()
	var grows atomic.Bool
	grows.Store(true)
	loop := &Loop{Name: "emails", Handler: firer, Store: store, InFlight: 4,
		Options: processor.Options{BatchSize: 100, PollInterval: 20 * time.Millisecond}.WithDefaults(),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)), Fresh: func() bool { return true },
		Failed: func(error) {}, Succeeded: func() {}, LogGrows: grows.Load}
	ctx, cancel := context.WithCancel(context.Background())
	wait := loop.Start(ctx, ctx)
	t.Cleanup(func() {
		cancel()
		wait()
	})
	schedule := func(prefix string, n int) {
		var changes []processor.TimerChange
		for i := range n {
			changes = append(changes, drivertest.Schedule(fmt.Sprintf("%s-%d", prefix, i), time.Now().Add(-time.Minute), `{}`))
		}
		drivertest.SaveTimers(t, store, "emails", changes...)
	}

	firer.expect(2, 30*time.Millisecond) // a second fire beside the first would end both at once
	schedule("growing", 8)
	drivertest.Eventually(t, 10*time.Second, func() bool { fired, _ := firer.firedAndMost(); return fired == 8 }, "the timers fired")
	_, most := firer.firedAndMost()
	require.Equal(t, 1, most, "one at a time while the log grows")
	spans := firer.spansSoFar()
	for i := 1; i < len(spans); i++ {
		took, rested := spans[i-1][1].Sub(spans[i-1][0]), spans[i][0].Sub(spans[i-1][1])
		require.GreaterOrEqual(t, rested, restAfter(took), "fire %d came %v after one that took %v", i, rested, took)
	}

	grows.Store(false)
	firer.expect(4, 10*time.Second) // each waits for the others: four at once, or the test times out
	schedule("quiet", 8)
	drivertest.Eventually(t, 20*time.Second, func() bool { fired, _ := firer.firedAndMost(); return fired == 16 }, "the timers fired")
	_, most = firer.firedAndMost()
	require.Equal(t, 4, most, "InFlight at once when it does not")
	// A fire is recorded before the loop forgets its timer: wait for the forgetting.
	drivertest.Eventually(t, 10*time.Second, func() bool { return drivertest.Stats(t, store, "emails").Waiting == 0 }, "each was forgotten")
}

// A fire that took long (a loaded database) is followed by a rest of at most maxGiveWayRest
// while the log grows, not nine times as long as it took: the next timer, already due, is not
// held back for seconds past its time.
func TestASlowFireHoldsTheNextTimerBackLittle(t *testing.T) {
	t.Parallel()
	store := memdriver.NewCheckpoints(nil)
	firer := newConcurrentFirer()
	firer.expect(2, 500*time.Millisecond) // one at a time: each fire takes the whole 500 ms
	loop := &Loop{Name: "holds", Handler: firer, Store: store, InFlight: 1,
		Options: processor.Options{BatchSize: 100, PollInterval: 20 * time.Millisecond}.WithDefaults(),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)), Fresh: func() bool { return true },
		Failed: func(error) {}, Succeeded: func() {}, LogGrows: func() bool { return true }}
	ctx, cancel := context.WithCancel(context.Background())
	wait := loop.Start(ctx, ctx)
	t.Cleanup(func() {
		cancel()
		wait()
	})
	due := time.Now().Add(-time.Minute)
	drivertest.SaveTimers(t, store, "holds", drivertest.Schedule("first", due, `{}`), drivertest.Schedule("second", due, `{}`))
	drivertest.Eventually(t, 20*time.Second, func() bool { fired, _ := firer.firedAndMost(); return fired == 2 }, "both timers fired")
	spans := firer.spansSoFar()
	took, rested := spans[0][1].Sub(spans[0][0]), spans[1][0].Sub(spans[0][1])
	require.GreaterOrEqual(t, took, 500*time.Millisecond)
	require.Less(t, rested, 2*time.Second, "the second timer came %v after a fire that took %v", rested, took)
}
