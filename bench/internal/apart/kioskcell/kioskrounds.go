package kioskcell

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// KioskRounds is how many rounds a level's measured time is cut into: in each, both doors run
// for an equal share of the run's duration, one after the other, the first of the two taking
// turns from one round to the next, so that both meet the machine, shared with other work, in
// the same states.
const KioskRounds = 6

// level measures both doors at the level: their workers readied (the kiosks logged in, their
// members shown), each door's warm-up, the copies topped up for the pace the warm-ups saw, and
// then KioskRounds rounds. Each door's cell adds up its rounds: checkouts over the time its
// workers ran, and the latencies of them all.
func (k *kiosks) level(ctx context.Context, level int, res *KiosksResult) ([]measure.Cell, error) {
	doors := []string{DoorSIP, DoorHTTP}
	if k.pace == 0 { // a first stock, whose adds give a first pace
		if err := k.stock(ctx, 20*level); err != nil {
			return nil, err
		}
	}
	ops := make([]workload.Operation, len(doors))
	for d, door := range doors {
		op, done, err := k.prepare(ctx, door, level, res)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", door, err)
		}
		defer done()
		ops[d] = op
	}
	for _, op := range ops {
		if k.cfg.Warmup <= 0 {
			break
		}
		if err := k.stock(ctx, int(kioskHeadroom*k.pace*k.cfg.Warmup.Seconds())+level); err != nil {
			return nil, err
		}
		warm := measure.RunWorkers(ctx, level, k.cfg.Warmup, op)
		k.pace = max(k.pace, warm.Throughput())
	}
	need := kioskHeadroom * k.pace * k.cfg.Duration.Seconds() * float64(len(doors))
	if err := k.stock(ctx, int(need)+level); err != nil {
		return nil, err
	}
	runs := make([]doorRun, len(doors))
	slice := k.cfg.Duration / KioskRounds
	for round := range KioskRounds {
		for i := range doors {
			d := (i + round) % len(doors)
			runs[d].add(runSlice(ctx, level, slice, ops[d]))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if k.next.Load() > k.added {
		return nil, errOutOfCopies
	}
	cells := make([]measure.Cell, len(doors))
	for d, door := range doors {
		cells[d] = runs[d].cell(door, level)
		k.pace = max(k.pace, cells[d].Throughput())
	}
	return cells, nil
}

// doorRun is one door's rounds at a level, added up.
type doorRun struct {
	latencies []time.Duration
	errors    int
	firstErr  error
	elapsed   time.Duration
}

func (r *doorRun) add(s doorRun) {
	r.latencies = append(r.latencies, s.latencies...)
	r.errors += s.errors
	r.elapsed += s.elapsed
	if r.firstErr == nil {
		r.firstErr = s.firstErr
	}
}

// cell is the rounds as one cell.
func (r *doorRun) cell(door string, level int) measure.Cell {
	slices.Sort(r.latencies)
	c := measure.Cell{Measurement: door, Concurrency: level, Ops: len(r.latencies), Errors: r.errors, Elapsed: r.elapsed,
		P50: figures.Percentile(r.latencies, 0.50), P99: figures.Percentile(r.latencies, 0.99)}
	if r.firstErr != nil {
		c.FirstError = r.firstErr.Error()
	}
	return c
}

// runSlice runs op in `concurrency` workers until d has passed, as measure.RunWorkers does, and
// returns what they did: the latency of each operation that succeeded.
func runSlice(ctx context.Context, concurrency int, d time.Duration, op workload.Operation) doorRun {
	runs := make([]doorRun, concurrency)
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
					r.errors++
					if r.firstErr == nil {
						r.firstErr = err
					}
					continue
				}
				r.latencies = append(r.latencies, time.Since(t0))
			}
		})
	}
	wg.Wait()
	out := doorRun{elapsed: time.Since(start)}
	for _, r := range runs {
		out.add(r)
	}
	out.elapsed = time.Since(start)
	return out
}
