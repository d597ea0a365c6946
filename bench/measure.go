package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// A measurement is one row group of the table: something done again and again by each of
// `concurrency` workers. The measurements that are not throughput at a concurrency (outbox
// latency, takeover, growth, memory) run after these, from run: see outbox.go, takeover.go,
// growth.go and memory.go.
type measurement interface {
	// name is the measurement's row label.
	name() string
	// setup runs once, before any cell.
	setup(ctx context.Context) error
	// prepare readies one cell and returns the operation its workers run.
	prepare(ctx context.Context, concurrency int) (operation, error)
	// close releases what setup took.
	close()
}

// A cellEnder is a measurement that holds something for one cell only, to be released as soon
// as the cell is measured: the database limits' own connections (see cellPool).
type cellEnder interface{ endCell() }

// An operation is one unit of work by worker number `worker` (0 to concurrency-1). An error
// counts as a failed operation, not as the end of the run.
type operation func(ctx context.Context, worker int) error

// cell is the result of one measurement at one concurrency.
type cell struct {
	Measurement string
	Concurrency int
	Ops         int // operations that succeeded while measured
	Errors      int // operations that failed while measured
	Elapsed     time.Duration
	P50, P99    time.Duration // latency of the operations that succeeded
	FirstError  string
}

// Throughput is the successful operations per second.
func (c cell) Throughput() float64 {
	if c.Elapsed <= 0 {
		return 0
	}
	return float64(c.Ops) / c.Elapsed.Seconds()
}

// peers are the service processes the throughput cells measure besides the main one.
type peers struct {
	beforeURL string           // the service built at BENCH_BEFORE; "" without it
	signedIn  *signedInService // the service with sign-in on, and its tokens
}

// measureThroughput runs the throughput cells against the main service and its peers: the
// service with sign-in on and, with BENCH_BEFORE, the service built at it, each a process of
// its own on a database of its own; and the main service's aggregate cache hits and misses
// during the commands cells. The peers are stopped once the cells are done, so that
// they weigh on none of the measurements after them.
func (b *bench) measureThroughput(ctx context.Context) ([]cell, cacheResult, error) {
	var p peers
	if b.beforeBin != "" {
		svc, err := startBefore(ctx, b.beforeBin, b.db)
		if err != nil {
			return nil, cacheResult{}, err
		}
		defer func() {
			if err := svc.Stop(context.WithoutCancel(ctx)); err != nil {
				logf("stopping the service at BENCH_BEFORE: %v", err)
			}
		}()
		p.beforeURL = svc.BaseURL
	}
	var err error
	if p.signedIn, err = startSignedIn(ctx, b.idpBin, b.bin, b.db, maxOf(b.cfg.Concurrency)); err != nil {
		return nil, cacheResult{}, err
	}
	defer p.signedIn.stop(ctx)
	watch := &cacheWatch{metricsURL: b.metricsURL}
	cells, err := runMeasurements(ctx, b.cfg, b.db.URL, b.svc.BaseURL, p, watch)
	return cells, watch.result, err
}

// runMeasurements measures every measurement at every concurrency level, the levels in
// order and, within a level, the measurements side by side. watch, when not nil, reads the
// main service's cache counters around each commands cell.
func runMeasurements(ctx context.Context, cfg config, databaseURL, serviceURL string, p peers, watch *cacheWatch) ([]cell, error) {
	measurements := throughputMeasurements(cfg, databaseURL, serviceURL, p, watch)
	for i, m := range measurements {
		logf("setting up %s", m.name())
		if err := m.setup(ctx); err != nil {
			for _, done := range measurements[:i] {
				done.close()
			}
			return nil, fmt.Errorf("%s: setup: %w", m.name(), err)
		}
	}
	defer func() {
		for _, m := range measurements {
			m.close()
		}
	}()

	var cells []cell
	for _, c := range cfg.Concurrency {
		for _, m := range measurements {
			res, err := runCell(ctx, cfg, m, c)
			if err != nil {
				return cells, err
			}
			cells = append(cells, res)
			logf("%-21s c=%-3d %9.1f ops/s  p50 %-9s p99 %-9s errors %d", res.Measurement, c,
				res.Throughput(), res.P50.Round(10*time.Microsecond), res.P99.Round(10*time.Microsecond), res.Errors)
			if res.Ops == 0 {
				return cells, fmt.Errorf("%s at concurrency %d: no operation succeeded: %s", m.name(), c, res.FirstError)
			}
		}
	}
	return cells, nil
}

// A cellWatcher is a measurement told when its measured run starts and ends, the warm-up
// before it left out: see cacheWatch.
type cellWatcher interface {
	startCell(ctx context.Context) error
	stopCell(ctx context.Context, concurrency int) error
}

// runCell prepares m at concurrency c, warms it up and measures it.
func runCell(ctx context.Context, cfg config, m measurement, c int) (cell, error) {
	op, err := m.prepare(ctx, c)
	if err != nil {
		return cell{}, fmt.Errorf("%s at concurrency %d: %w", m.name(), c, err)
	}
	if cfg.Warmup > 0 {
		runWorkers(ctx, c, cfg.Warmup, op)
	}
	w, watched := m.(cellWatcher)
	if watched {
		if err := w.startCell(ctx); err != nil {
			return cell{}, fmt.Errorf("%s at concurrency %d: %w", m.name(), c, err)
		}
	}
	res := runWorkers(ctx, c, cfg.Duration, op)
	if e, ok := m.(cellEnder); ok {
		e.endCell()
	}
	if err := ctx.Err(); err != nil {
		return cell{}, fmt.Errorf("interrupted: %w", err)
	}
	if watched {
		if err := w.stopCell(ctx, c); err != nil {
			return cell{}, fmt.Errorf("%s at concurrency %d: %w", m.name(), c, err)
		}
	}
	res.Measurement = m.name()
	return res, nil
}

// throughputMeasurements are the measurements in the order they run at each level: the limits
// first, then the service's, commands with a token and each of the before service's right
// after its counterpart. Contact changes run on accounts of their own, apart from the
// payments'.
func throughputMeasurements(cfg config, databaseURL, serviceURL string, p peers, watch *cacheWatch) []measurement {
	conns := maxOf(cfg.Concurrency)
	api := newAPIClient(serviceURL, conns)
	cmds := &commands{api: api, accounts: cfg.Accounts}
	ms := []measurement{
		&baseline{cellPool: cellPool{databaseURL: databaseURL}, streams: cfg.Accounts},
		&appendLimit{cellPool: cellPool{databaseURL: databaseURL, simple: true}, streams: cfg.Accounts},
		&appendLimit{cellPool: cellPool{databaseURL: databaseURL}, streams: cfg.Accounts},
		watch.watched(cmds),
		p.signedIn.measurement(cfg.Accounts, conns),
	}
	var beforeAPI *apiClient
	beforeURL := p.beforeURL
	if beforeURL != "" {
		beforeAPI = newAPIClient(beforeURL, conns)
		ms = append(ms, before{&commands{api: beforeAPI, accounts: cfg.Accounts}})
	}
	ms = append(ms, &contacts{api: api, accounts: cfg.Accounts})
	if beforeURL != "" {
		ms = append(ms, before{&contacts{api: beforeAPI, accounts: cfg.Accounts}})
	}
	ms = append(ms, &replays{api: api, commands: cmds}, &contention{api: api})
	if beforeURL != "" {
		ms = append(ms, before{&contention{api: beforeAPI}})
	}
	return ms
}

// runWorkers runs op in `concurrency` workers until d has passed, and measures it.
func runWorkers(ctx context.Context, concurrency int, d time.Duration, op operation) cell {
	type tally struct {
		latencies []time.Duration
		errors    int
		firstErr  error
	}
	tallies := make([]tally, concurrency)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Go(func() {
			t := &tallies[w]
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(deadline) {
					return
				}
				err := op(ctx, w)
				if err != nil {
					if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
						return
					}
					t.errors++
					if t.firstErr == nil {
						t.firstErr = err
					}
					continue
				}
				t.latencies = append(t.latencies, time.Since(t0))
			}
		})
	}
	wg.Wait()
	res := cell{Concurrency: concurrency, Elapsed: time.Since(start)}
	var all []time.Duration
	for _, t := range tallies {
		all = append(all, t.latencies...)
		res.Errors += t.errors
		if t.firstErr != nil && res.FirstError == "" {
			res.FirstError = t.firstErr.Error()
		}
	}
	slices.Sort(all)
	res.Ops = len(all)
	res.P50, res.P99 = percentile(all, 0.50), percentile(all, 0.99)
	return res
}

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
