package engine

import (
	"context"
	"fmt"
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

// The holder of a timer saga is stopped hard while a fire is in hand, between the fire's work
// and the timer being forgotten (a SIGKILL's worst moment): the standby takes the lease and
// fires what was due, in due order. Nothing fires twice but the timer that was in hand, and
// its work, keyed by the timer's key and At, is recognised as done before.
func TestTimersTakeover(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	testTimersTakeover(t, env.store, env.cps, env.config(), env.config())
}

// The same on PostgreSQL: two replicas, each with its own store and leases, on one database.
func TestPostgresTimersTakeover(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	cps := pgdriver.NewCheckpoints(pool)
	var configs [2]Config
	var store eventstore.Store
	for i := range configs {
		s := pgstore.New(pool, discardLogger())
		t.Cleanup(s.Close)
		store = s
		configs[i] = Config{Store: s, Checkpoints: cps, Leases: pgdriver.NewLeases(pool.Config().ConnConfig, testTiming(), discardLogger()),
			Logger: discardLogger(), Options: testOptions()}
	}
	testTimersTakeover(t, store, cps, configs[0], configs[1])
}

// Timers on PostgreSQL fire once each, in due order.
func TestPostgresTimersFireOnceInDueOrder(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	store := pgstore.New(pool, discardLogger())
	t.Cleanup(store.Close)
	cps := pgdriver.NewCheckpoints(pool)
	testTimersFireOnceInDueOrder(t, store, cps, Config{Store: store, Checkpoints: cps,
		Leases: pgdriver.NewLeases(pool.Config().ConnConfig, testTiming(), discardLogger()), Logger: discardLogger(), Options: testOptions()})
}

// testTiming is a lease timing that hands over within milliseconds, and allows a busy machine
// running the race detector a second per check (as TestPostgresTwoReplicas explains).
func testTiming() pgdriver.LeaseTiming {
	return pgdriver.LeaseTiming{RetryInterval: 50 * time.Millisecond, CheckInterval: 100 * time.Millisecond, CheckTimeout: time.Second}
}

func testTimersTakeover(t *testing.T, store eventstore.Store, cps processor.Checkpoints, configA, configB Config) {
	const n, stuck = 20, 8
	now := time.Now()
	f := newEffects()
	schedule := scheduleAll("loan-0", "notice", n, func(i int) time.Time { return now.Add(time.Duration(i-n) * time.Millisecond) })
	a, b := newTimerSaga(f, schedule), newTimerSaga(f, schedule)
	reached := make(chan struct{})
	var once sync.Once
	a.after = func(ctx context.Context, timer processor.Timer) error {
		if timer.Key != fmt.Sprintf("notice-%d", stuck) {
			return nil
		}
		once.Do(func() { close(reached) })
		<-ctx.Done() // the work is done; the holder dies before the timer is forgotten
		return ctx.Err()
	}
	holder := startGroup(t, configA, saga("notices", a))
	drivertest.Eventually(t, 10*time.Second, func() bool { return holder.HoldsLease("notices") }, "the first replica holds the lease")
	standby := startGroup(t, configB, saga("notices", b))
	drivertest.AppendEvents(t, store, "loan", 1)
	select {
	case <-reached:
	case <-time.After(10 * time.Second):
		t.Fatal("the holder did not reach the timer it dies on")
	}

	stopHard(t, holder)
	drivertest.Eventually(t, 20*time.Second, func() bool {
		return len(b.firedKeys()) == n-stuck && timerStats(t, cps, "notices").Waiting == 0
	}, "the standby fires the rest")
	require.True(t, standby.HoldsLease("notices"))
	require.Equal(t, keysFrom("notice", 0, 1, 2, 3, 4, 5, 6, 7), a.firedKeys(), "the holder fired these, in due order")
	require.Equal(t, keysFrom("notice", 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19), b.firedKeys(), "the standby the rest, in due order")
	require.Len(t, f.keys(), n, "every timer's work was done")
	inHand := effectKey(processor.Timer{Key: "notice-8", At: now.Add((stuck - n) * time.Millisecond).UTC().Truncate(time.Microsecond)})
	for key, times := range f.times() {
		if key == inHand {
			require.Equal(t, 2, times, "the one in hand at the kill is fired again: its work says it was done")
			continue
		}
		require.Equal(t, 1, times, "%s fired once", key)
	}
}

// stopHard stops g as near to a SIGKILL as a process can do to itself: Stop's context has
// ended already, so what is in hand is abandoned at once, finishing nothing.
func stopHard(t *testing.T, g *Group) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, g.Stop(ctx), context.Canceled)
}
