package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// keySlots lets at most limit events of one key be handled at once, the way the outbox limits
// the emails in flight to one domain: an event whose key is full is handed back with Later,
// and the first one waiting is told when a slot frees.
type keySlots struct {
	limit int

	mu      sync.Mutex
	busy    map[string]int
	waiting map[string][]chan struct{}
	most    map[string]int
}

func newKeySlots(limit int) *keySlots {
	return &keySlots{limit: limit, busy: map[string]int{}, waiting: map[string][]chan struct{}{}, most: map[string]int{}}
}

func (k *keySlots) take(key string) (release func(), wait <-chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.busy[key] >= k.limit {
		c := make(chan struct{})
		k.waiting[key] = append(k.waiting[key], c)
		return nil, c
	}
	k.busy[key]++
	k.most[key] = max(k.most[key], k.busy[key])
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.busy[key]--
		if w := k.waiting[key]; len(w) > 0 {
			close(w[0])
			k.waiting[key] = w[1:]
		}
	}, nil
}

func (k *keySlots) mostAtOnce(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.most[key]
}

// An event its handler hands back (Later) gives its slot to the events after it, uses up no
// attempt, and is handled once its key frees: one slow key never takes every slot, and never
// has more than its own limit in hand.
func TestGroupStartsOthersWhileAKeyIsFull(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	slowEvents := drivertest.AppendEvents(t, env.store, "slow", 12) // first in the log
	fastEvents := drivertest.AppendEvents(t, env.store, "fast", 24)
	slow := map[int64]bool{}
	for _, e := range slowEvents {
		slow[e.Position] = true
	}
	failOnce := fastEvents[5].Position // deferred once, then handed back once, then handled

	slots := newKeySlots(2)
	var handedBack, failedOnce atomic.Bool
	var firstSlowDone, lastFastDone atomic.Int64
	var attempts sync.Map // position -> the attempt it was handled at
	h := drivertest.NewRecorder(func(ctx context.Context, e eventstore.Event, _ int) error {
		if e.Position == failOnce {
			switch {
			case failedOnce.CompareAndSwap(false, true):
				return errors.New("451 try again later")
			case handedBack.CompareAndSwap(false, true):
				return processor.Later(nil, errors.New("busy"))
			}
		}
		key := "fast"
		if slow[e.Position] {
			key = "slow"
		}
		release, wait := slots.take(key)
		if release == nil {
			return processor.Later(wait, errors.New("the key is full"))
		}
		defer release()
		if key == "slow" {
			select {
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
			firstSlowDone.CompareAndSwap(0, time.Now().UnixNano())
		} else {
			lastFastDone.Store(time.Now().UnixNano())
		}
		attempts.Store(e.Position, processor.Attempt(ctx))
		return nil
	})
	cfg := env.config()
	cfg.Options.BatchSize = 50
	cfg.Options.Retry = processor.Backoff{Attempts: 3, First: 20 * time.Millisecond, Max: 20 * time.Millisecond}
	startGroup(t, cfg, processor.Processor{Name: "emails", Kind: processor.KindOutbox, Handler: h, InFlight: 6})

	all := append(append([]eventstore.Event(nil), slowEvents...), fastEvents...)
	drivertest.Eventually(t, 10*time.Second, func() bool {
		return h.Count() == len(all) && drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == all[len(all)-1].Checkpoint()
	}, "every event handled, the checkpoint at the end")
	require.ElementsMatch(t, positionsOf(all), h.Positions(), "each event once")
	require.Equal(t, 2, slots.mostAtOnce("slow"), "the slow key had its two slots, never more")
	require.Less(t, lastFastDone.Load(), firstSlowDone.Load(),
		"the fast events, after the slow ones in the log, did not wait for them")
	attempts.Range(func(k, v any) bool {
		want := 1
		if k.(int64) == failOnce {
			want = 2
		}
		require.Equal(t, want, v.(int), "position %d: handing back uses up no attempt", k)
		return true
	})
	require.True(t, handedBack.Load())
	require.Zero(t, drivertest.CountDeferred(t, env.cps, "emails"))
	require.Zero(t, drivertest.CountParked(t, env.cps, "emails"))
}
