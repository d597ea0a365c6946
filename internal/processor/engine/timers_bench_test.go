package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// countingFirer fires timers by counting them, and says when it has counted want.
type countingFirer struct {
	fired atomic.Int64
	want  int64
	all   chan struct{}
}

func (c *countingFirer) Handle(context.Context, eventstore.Event) error { return nil }

func (c *countingFirer) Fire(context.Context, processor.Timer) error {
	if c.fired.Add(1) == c.want {
		close(c.all)
	}
	return nil
}

// 10,000 timers that are due fire, one at a time and in due order, from PostgreSQL: at least
// 1,000 a second is what sagas need after an outage (a day's reminders fire within seconds).
// The time counted is from the start of the group to the last timer forgotten.
func BenchmarkPostgresTimersFire(b *testing.B) {
	const n = 10_000
	pool := pgtest.NewPool(b)
	store := pgstore.New(pool, discardLogger())
	b.Cleanup(store.Close)
	cps := pgdriver.NewCheckpoints(pool)
	opts := testOptions()
	opts.BatchSize = 100
	cfg := Config{Store: store, Checkpoints: cps, Leases: pgdriver.NewLeases(pool.Config().ConnConfig, testTiming(), discardLogger()),
		Logger: discardLogger(), Options: opts}
	var took time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		name := fmt.Sprintf("reminders-%d", i)
		changes := make([]processor.TimerChange, n)
		now := time.Now()
		for j := range changes {
			changes[j] = drivertest.Schedule(fmt.Sprintf("reminder:book-%d:loan-%d", j, j), now.Add(-time.Duration(n-j)*time.Millisecond), `{"loanId":"loan-1"}`)
		}
		drivertest.SaveTimers(b, cps, name, changes...)
		firer := &countingFirer{want: n, all: make(chan struct{})}
		g, err := NewGroup(cfg, processor.Processor{Name: name, Kind: processor.KindSaga, Handler: firer})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		g.Start(context.Background())
		<-firer.all
		drivertest.Eventually(b, time.Minute, func() bool { return timerStats(b, cps, name).Waiting == 0 }, "the last timer forgotten")
		took += time.Since(start)
		b.StopTimer()
		stopGroup(b, g)
	}
	rate := float64(n*b.N) / took.Seconds()
	b.ReportMetric(rate, "timers/s")
	if rate < 1000 {
		b.Errorf("%.0f timers a second, want 1,000 at least", rate)
	}
}
