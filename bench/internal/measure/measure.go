package measure

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// Cell is the result of one measurement at one concurrency.
type Cell struct {
	Measurement string
	Concurrency int
	Ops         int // operations that succeeded while measured
	Errors      int // operations that failed while measured
	Elapsed     time.Duration
	P50, P99    time.Duration // latency of the operations that succeeded
	FirstError  string
}

// Throughput is the successful operations per second.
func (c Cell) Throughput() float64 {
	if c.Elapsed <= 0 {
		return 0
	}
	return float64(c.Ops) / c.Elapsed.Seconds()
}

// Peers are the service processes the throughput cells measure besides the main one.
type Peers struct {
	BeforeURL string                    // the service built at BENCH_BEFORE; "" without it
	SignedIn  *workload.SignedInService // the service with sign-in on, and its tokens
}

// RunMeasurements measures every measurement at every concurrency level, the levels in
// order and, within a level, the measurements side by side. watch, when not nil, reads the
// main service's cache counters around each commands cell.
func RunMeasurements(ctx context.Context, cfg environment.Config, databaseURL, serviceURL string, p Peers, watch *CacheWatch) ([]Cell, error) {
	measurements := throughputMeasurements(cfg, databaseURL, serviceURL, p, watch)
	for i, m := range measurements {
		environment.Logf("setting up %s", m.Name())
		if err := m.Setup(ctx); err != nil {
			for _, done := range measurements[:i] {
				done.Close()
			}
			return nil, fmt.Errorf("%s: setup: %w", m.Name(), err)
		}
	}
	defer func() {
		for _, m := range measurements {
			m.Close()
		}
	}()

	var cells []Cell
	for _, c := range cfg.Concurrency {
		for _, m := range measurements {
			res, err := runCell(ctx, cfg, m, c)
			if err != nil {
				return cells, err
			}
			cells = append(cells, res)
			environment.Logf("%-21s c=%-3d %9.1f ops/s  p50 %-9s p99 %-9s errors %d", res.Measurement, c,
				res.Throughput(), res.P50.Round(10*time.Microsecond), res.P99.Round(10*time.Microsecond), res.Errors)
			if res.Ops == 0 {
				return cells, fmt.Errorf("%s at concurrency %d: no operation succeeded: %s", m.Name(), c, res.FirstError)
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
func runCell(ctx context.Context, cfg environment.Config, m workload.Measurement, c int) (Cell, error) {
	op, err := m.Prepare(ctx, c)
	if err != nil {
		return Cell{}, fmt.Errorf("%s at concurrency %d: %w", m.Name(), c, err)
	}
	if cfg.Warmup > 0 {
		RunWorkers(ctx, c, cfg.Warmup, op)
	}
	w, watched := m.(cellWatcher)
	if watched {
		if err := w.startCell(ctx); err != nil {
			return Cell{}, fmt.Errorf("%s at concurrency %d: %w", m.Name(), c, err)
		}
	}
	res := RunWorkers(ctx, c, cfg.Duration, op)
	if e, ok := m.(workload.CellEnder); ok {
		e.EndCell()
	}
	if err := ctx.Err(); err != nil {
		return Cell{}, fmt.Errorf("interrupted: %w", err)
	}
	if watched {
		if err := w.stopCell(ctx, c); err != nil {
			return Cell{}, fmt.Errorf("%s at concurrency %d: %w", m.Name(), c, err)
		}
	}
	res.Measurement = m.Name()
	return res, nil
}

// throughputMeasurements are the measurements in the order they run at each level: the limits
// first, then the service's, commands with a token and each of the before service's right
// after its counterpart. Contact changes run on accounts of their own, apart from the
// payments'.
func throughputMeasurements(cfg environment.Config, databaseURL, serviceURL string, p Peers, watch *CacheWatch) []workload.Measurement {
	conns := figures.MaxOf(cfg.Concurrency)
	api := workload.NewClient(serviceURL, conns)
	cmds := &workload.Commands{API: api, Accounts: cfg.Accounts}
	ms := []workload.Measurement{
		&workload.Baseline{CellPool: workload.CellPool{DatabaseURL: databaseURL}, Streams: cfg.Accounts},
		&workload.AppendLimit{CellPool: workload.CellPool{DatabaseURL: databaseURL, Simple: true}, Streams: cfg.Accounts},
		&workload.AppendLimit{CellPool: workload.CellPool{DatabaseURL: databaseURL}, Streams: cfg.Accounts},
		watch.watched(cmds),
		p.SignedIn.Measurement(cfg.Accounts, conns),
	}
	var beforeAPI *workload.Client
	beforeURL := p.BeforeURL
	if beforeURL != "" {
		beforeAPI = workload.NewClient(beforeURL, conns)
		ms = append(ms, workload.Before{Measurement: &workload.Commands{API: beforeAPI, Accounts: cfg.Accounts}})
	}
	ms = append(ms, &workload.Contacts{API: api, Accounts: cfg.Accounts})
	if beforeURL != "" {
		ms = append(ms, workload.Before{Measurement: &workload.Contacts{API: beforeAPI, Accounts: cfg.Accounts}})
	}
	ms = append(ms, &workload.Replays{API: api, Commands: cmds}, &workload.Contention{API: api})
	if beforeURL != "" {
		ms = append(ms, workload.Before{Measurement: &workload.Contention{API: beforeAPI}})
	}
	return ms
}

// RunWorkers runs op in `concurrency` workers until d has passed, and measures it.
func RunWorkers(ctx context.Context, concurrency int, d time.Duration, op workload.Operation) Cell {
	run := RunFor(ctx, concurrency, d, op)
	return run.Cell("", concurrency)
}

// Run is what workers did: the latency of each operation that succeeded, the operations that
// failed and the first failure, and the wall time. Runs add up (Add), and make a Cell.
type Run struct {
	Latencies []time.Duration
	Errors    int
	FirstErr  error
	Elapsed   time.Duration
}

// RunFor runs op in `concurrency` workers until d has passed, and returns what they did.
func RunFor(ctx context.Context, concurrency int, d time.Duration, op workload.Operation) Run {
	runs := make([]Run, concurrency)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Go(func() {
			r := &runs[w]
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(deadline) {
					return
				}
				if err := op(ctx, w); err != nil {
					if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
						return
					}
					r.Errors++
					if r.FirstErr == nil {
						r.FirstErr = err
					}
					continue
				}
				r.Latencies = append(r.Latencies, time.Since(t0))
			}
		})
	}
	wg.Wait()
	out := Run{Elapsed: time.Since(start)}
	for _, r := range runs {
		out.Add(r) // a worker's Elapsed is zero: the run's is out's
	}
	return out
}

// Add adds s's operations, failures and wall time to r's.
func (r *Run) Add(s Run) {
	r.Latencies = append(r.Latencies, s.Latencies...)
	r.Errors += s.Errors
	r.Elapsed += s.Elapsed
	if r.FirstErr == nil {
		r.FirstErr = s.FirstErr
	}
}

// Cell is the run as a cell of measurement at concurrency: its latencies sorted, in place.
func (r *Run) Cell(measurement string, concurrency int) Cell {
	slices.Sort(r.Latencies)
	c := Cell{Measurement: measurement, Concurrency: concurrency, Ops: len(r.Latencies), Errors: r.Errors,
		Elapsed: r.Elapsed, P50: figures.Percentile(r.Latencies, 0.50), P99: figures.Percentile(r.Latencies, 0.99)}
	if r.FirstErr != nil {
		c.FirstError = r.FirstErr.Error()
	}
	return c
}
