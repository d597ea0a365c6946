package kioskcell

import (
	"context"
	"fmt"

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
	runs := make([]measure.Run, len(doors))
	slice := k.cfg.Duration / KioskRounds
	for round := range KioskRounds {
		for i := range doors {
			d := (i + round) % len(doors)
			runs[d].Add(measure.RunFor(ctx, level, slice, ops[d]))
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
		cells[d] = runs[d].Cell(door, level)
		k.pace = max(k.pace, cells[d].Throughput())
	}
	return cells, nil
}
