package drivertest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// Eventually polls cond until it holds or timeout passes. Tests wait for conditions, never for
// fixed times, so they are as fast as the code and don't fail on a slow machine.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not true after %v: %s", timeout, fmt.Sprintf(format, args...))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// AppendEvents appends n events to streams named after prefix, up to three per append, so that
// the log has transactions of several events. It returns the events in log order.
func AppendEvents(t testing.TB, store eventstore.Store, prefix string, n int) []eventstore.Event {
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

// Recorder is a processor.Handler that records what it handled. fail, when set, decides each
// attempt: it may return an error, or block (it must give up when ctx ends, as a real handler
// would).
type Recorder struct {
	fail func(ctx context.Context, e eventstore.Event, attempt int) error

	mu      sync.Mutex
	handled []int64       // positions handled successfully, in the order they were handled
	calls   map[int64]int // attempts per position, failed or not
}

// NewRecorder returns a Recorder whose attempts fail decides (nil: every attempt succeeds).
func NewRecorder(fail func(ctx context.Context, e eventstore.Event, attempt int) error) *Recorder {
	return &Recorder{fail: fail, calls: map[int64]int{}}
}

// Handle implements processor.Handler.
func (r *Recorder) Handle(ctx context.Context, e eventstore.Event) error {
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
	r.handled = append(r.handled, e.Position)
	r.mu.Unlock()
	return nil
}

// Positions are the positions handled successfully, in the order they were handled.
func (r *Recorder) Positions() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.handled)
}

// Count is how many events were handled successfully.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.handled)
}

// Attempts is how many times the event at position was tried, failed or not.
func (r *Recorder) Attempts(position int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[position]
}
