package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
)

// effects are what fired timers did, shared by the replicas of a test as the log is. An effect
// is keyed by its timer's key and At, as a saga's command id would be: done twice, the second
// is recognised and does nothing, so only the count of times it was done shows a repeat.
type effects struct {
	mu    sync.Mutex
	done  map[string]int // times done, by key and At
	order []string       // keys, in the order their effects were first done
}

func newEffects() *effects { return &effects{done: map[string]int{}} }

func effectKey(t processor.Timer) string { return t.Key + "@" + t.At.Format(time.RFC3339Nano) }

func (f *effects) do(t processor.Timer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done[effectKey(t)] == 0 {
		f.order = append(f.order, t.Key)
	}
	f.done[effectKey(t)]++
}

// keys are the keys whose effects were done, in the order they were first done.
func (f *effects) keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.order)
}

// times is how many times each effect was done.
func (f *effects) times() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.done))
	for k, n := range f.done {
		out[k] = n
	}
	return out
}

// timerSaga is a saga that schedules timers as its events say (onEvent) and fires them: before
// may fail a fire, then the effect is done, then after may fail or block it (the crash window
// between a fire's work and the timer being forgotten).
type timerSaga struct {
	effects *effects
	clock   func() time.Time // the store's clock, read at each fire
	onEvent func(ctx context.Context, e eventstore.Event) error
	before  func(ctx context.Context, t processor.Timer) error
	after   func(ctx context.Context, t processor.Timer) error

	mu       sync.Mutex
	fired    []processor.Timer    // the fires that succeeded, in order
	firedAt  map[string]time.Time // by key, the store's clock at its last successful fire
	attempts map[string][]int     // by key, the Attempts of every fire
}

func newTimerSaga(f *effects, onEvent func(ctx context.Context, e eventstore.Event) error) *timerSaga {
	return &timerSaga{effects: f, clock: time.Now, onEvent: onEvent, firedAt: map[string]time.Time{}, attempts: map[string][]int{}}
}

func (s *timerSaga) Handle(ctx context.Context, e eventstore.Event) error {
	if s.onEvent == nil {
		return nil
	}
	return s.onEvent(ctx, e)
}

func (s *timerSaga) Fire(ctx context.Context, t processor.Timer) error {
	s.mu.Lock()
	s.attempts[t.Key] = append(s.attempts[t.Key], t.Attempts)
	s.mu.Unlock()
	if s.before != nil {
		if err := s.before(ctx, t); err != nil {
			return err
		}
	}
	s.effects.do(t)
	if s.after != nil {
		if err := s.after(ctx, t); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fired = append(s.fired, t)
	s.firedAt[t.Key] = s.clock()
	return nil
}

// firedKeys are the keys of the fires that succeeded, in order.
func (s *timerSaga) firedKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.fired))
	for i, t := range s.fired {
		out[i] = t.Key
	}
	return out
}

func (s *timerSaga) firedTimers() []processor.Timer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.fired)
}

func (s *timerSaga) attemptsOf(key string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.attempts[key])
}

// scheduleAll is an onEvent that schedules timers keyed prefix-0 to prefix-(n-1) on the first
// event of stream, due at the times at gives, in a shuffled order, all in one save.
func scheduleAll(stream, prefix string, n int, at func(i int) time.Time) func(ctx context.Context, e eventstore.Event) error {
	return func(ctx context.Context, e eventstore.Event) error {
		if e.StreamID != stream || e.Version != 1 {
			return nil
		}
		for _, i := range shuffled(n) {
			if err := processor.Schedule(ctx, fmt.Sprintf("%s-%d", prefix, i), at(i), map[string]int{"n": i}); err != nil {
				return err
			}
		}
		return nil
	}
}

// shuffled is 0 to n-1 in an order that is neither theirs nor their reverse.
func shuffled(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (i*7 + 3) % n
	}
	if n%7 == 0 {
		panic("shuffled: n must not be a multiple of 7")
	}
	return out
}

// timerStats are the stats of name's timers.
func timerStats(t testing.TB, cps processor.Checkpoints, name string) processor.TimerStats {
	t.Helper()
	s, err := cps.TimerStats(context.Background(), name)
	require.NoError(t, err)
	return s
}

// keysFrom are prefix-i for the given i, in order.
func keysFrom(prefix string, is ...int) []string {
	out := make([]string, len(is))
	for i, n := range is {
		out[i] = fmt.Sprintf("%s-%d", prefix, n)
	}
	return out
}

// dataN is the n a timer's data carries.
func dataN(t *testing.T, timer processor.Timer) int {
	t.Helper()
	var v struct{ N int }
	require.NoError(t, json.Unmarshal(timer.Data, &v))
	return v.N
}

// logBuffer is a log that tests read back, safe for concurrent writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }
