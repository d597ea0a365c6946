package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// A fire handed back (Later: the outbox's recipient domain has all its slots taken) is no
// pause: the other timers of the batch fire without waiting for it, and it fires, using up no
// attempt and logging no warning, as soon as its Ready channel is closed.
func TestTimersHandedBackLetOthersFire(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	testTimersHandedBackLetOthersFire(t, env.store, env.config())
}

// The same on PostgreSQL.
func TestPostgresTimersHandedBackLetOthersFire(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	store := pgstore.New(pool, discardLogger())
	t.Cleanup(store.Close)
	cps := pgdriver.NewCheckpoints(pool)
	testTimersHandedBackLetOthersFire(t, store, Config{Store: store, Checkpoints: cps,
		Leases: pgdriver.NewLeases(pool.Config().ConnConfig, testTiming(), discardLogger()), Logger: discardLogger(), Options: testOptions()})
}

func testTimersHandedBackLetOthersFire(t *testing.T, store eventstore.Store, cfg Config) {
	// busy-i and free-i take turns in due order, busy first, so that every batch (of 4) has
	// both, and the earliest timer is a busy one.
	const busy, free = 4, 8
	var keys []string
	for i := range busy + free {
		if i%3 == 0 {
			keys = append(keys, fmt.Sprintf("busy-%d", i/3))
		} else {
			keys = append(keys, fmt.Sprintf("free-%d", i-i/3-1))
		}
	}
	now := time.Now()
	s := newTimerSaga(newEffects(), func(ctx context.Context, _ eventstore.Event) error {
		for i, key := range keys {
			if err := processor.Schedule(ctx, key, now.Add(time.Duration(i-len(keys))*time.Millisecond), nil); err != nil {
				return err
			}
		}
		return nil
	})

	// ready is closed once every free timer has fired, or, should they wait for the busy ones,
	// after a while; then the busy ones go.
	ready := make(chan struct{})
	var (
		mu            sync.Mutex
		readyAt       time.Time
		freeFiredLast bool
		freeFired     int
		handedBack    int
		firedAt       = map[string]time.Time{}
	)
	closeReady := func(byFree bool) {
		mu.Lock()
		defer mu.Unlock()
		if readyAt.IsZero() {
			readyAt, freeFiredLast = time.Now(), byFree
			close(ready)
		}
	}
	giveUp := time.AfterFunc(3*time.Second, func() { closeReady(false) })
	t.Cleanup(func() { giveUp.Stop() })
	s.before = func(_ context.Context, timer processor.Timer) error {
		if !strings.HasPrefix(timer.Key, "busy-") {
			return nil
		}
		select {
		case <-ready:
			return nil
		default:
			mu.Lock()
			handedBack++
			mu.Unlock()
			return processor.Later(ready, errors.New("the recipient's domain has as many emails in flight as it may"))
		}
	}
	s.after = func(_ context.Context, timer processor.Timer) error {
		mu.Lock()
		firedAt[timer.Key] = time.Now()
		mu.Unlock()
		if strings.HasPrefix(timer.Key, "free-") {
			mu.Lock()
			freeFired++
			all := freeFired == free
			mu.Unlock()
			if all {
				closeReady(true)
			}
		}
		return nil
	}
	var log logBuffer
	cfg.Logger = log.logger()
	g := startGroup(t, cfg, saga("reminders", s))
	drivertest.AppendEvents(t, store, "loan", 1)

	drivertest.Eventually(t, 20*time.Second, func() bool {
		return len(s.firedKeys()) == busy+free && timerStats(t, cfg.Checkpoints, "reminders").Waiting == 0
	}, "every timer fired and forgotten")
	mu.Lock()
	defer mu.Unlock()
	require.True(t, freeFiredLast, "the free timers fired while the busy ones, due before them, were handed back")
	require.Positive(t, handedBack)
	require.Equal(t, append(keysFrom("free", 0, 1, 2, 3, 4, 5, 6, 7), keysFrom("busy", 0, 1, 2, 3)...), s.firedKeys(),
		"the free ones in due order, then the busy ones in due order")
	for i := range busy {
		key := fmt.Sprintf("busy-%d", i)
		require.Less(t, firedAt[key].Sub(readyAt), 2*time.Second, "%s fired promptly once it could (a pause's backoff goes to 5 s)", key)
		for _, attempts := range s.attemptsOf(key) {
			require.Zero(t, attempts, "%s: handing back uses up no attempt", key)
		}
	}
	require.NotContains(t, log.String(), "depends on is down", "nothing is down")
	require.NotContains(t, log.String(), "timer failed", "nothing failed")
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.Nil(t, statuses[0].LastError, "nothing failed")
}
