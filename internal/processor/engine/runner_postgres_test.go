package engine

import (
	"slices"
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

// Two replicas on one database, each with its own store and leases: one runs the outbox at a
// time; every event is handled once in all; when the holder stops, the other goes on from the
// shared checkpoint.
func TestPostgresTwoReplicas(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	cps := pgdriver.NewCheckpoints(pool)
	// A check that takes longer than CheckTimeout loses the lease and may hand a batch to the
	// other replica twice (at least once is the outbox's promise). A busy machine running the
	// race detector can be that slow for 200 ms, so this test allows a second: it is about
	// handing over on Stop, not about checks.
	timing := pgdriver.LeaseTiming{RetryInterval: 50 * time.Millisecond, CheckInterval: 100 * time.Millisecond, CheckTimeout: time.Second}

	type replicaUnderTest struct {
		group *Group
		h     *drivertest.Recorder
	}
	var replicas [2]replicaUnderTest
	var store eventstore.Store
	for i := range replicas {
		s := pgstore.New(pool, discardLogger())
		t.Cleanup(s.Close)
		store = s
		cfg := Config{Store: s, Checkpoints: cps, Leases: pgdriver.NewLeases(pool.Config().ConnConfig, timing, discardLogger()),
			Logger: discardLogger(), Options: testOptions()}
		h := drivertest.NewRecorder(nil)
		replicas[i] = replicaUnderTest{group: startGroup(t, cfg, outbox("emails", h)), h: h}
	}
	events := drivertest.AppendEvents(t, store, "book", 50)

	handled := func() []int64 {
		all := append(replicas[0].h.Positions(), replicas[1].h.Positions()...)
		slices.Sort(all)
		return all
	}
	drivertest.Eventually(t, 20*time.Second, func() bool { return len(handled()) >= len(events) }, "the first 50 are handled")
	want := positionsOf(events)
	require.Equal(t, want, handled(), "each once, by one replica or the other")
	holder, other := replicas[0], replicas[1]
	if !holder.group.HoldsLease("emails") {
		holder, other = other, holder
	}
	require.True(t, holder.group.HoldsLease("emails"), "one replica holds the lease")
	require.False(t, other.group.HoldsLease("emails"), "and only one")
	t.Logf("before the stop: the holder handled %d, the standby %d", holder.h.Count(), other.h.Count())

	took := stopGroup(t, holder.group)
	t.Logf("the holder stopped in %v", took)
	stoppedAt := holder.h.Count()
	more := drivertest.AppendEvents(t, store, "member", 50)
	want = append(want, positionsOf(more)...)
	drivertest.Eventually(t, 20*time.Second, func() bool { return len(handled()) >= len(want) }, "the other replica handles the next 50")
	require.Equal(t, want, handled(), "all 100, each once")
	require.True(t, other.group.HoldsLease("emails"))
	require.Equal(t, stoppedAt, holder.h.Count(), "the stopped replica handled nothing more")
	require.Equal(t, positionsOf(more), other.h.Positions()[len(other.h.Positions())-len(more):], "in log order")
	// The handler sees an event before its batch's checkpoint is saved: wait for the save.
	drivertest.Eventually(t, 10*time.Second, func() bool {
		return drivertest.LoadPosition(t, cps, "emails") == processor.Position{Checkpoint: more[len(more)-1].Checkpoint()}
	},
		"the checkpoint reaches the end of the log")
}
