package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/report"
)

// measureHolds runs the title holds measurement on a database of its own.
func (b *bench) measureHolds(ctx context.Context, env environment.Machine) (apart.HoldsResult, error) {
	environment.Logf("holds: a title with %s holds waiting and %d copies, returns at concurrency %d, on a database of its own",
		figures.Thousands(apart.HoldsQueue), apart.HoldsCopies, apart.HoldsConcurrency)
	holdsURL, err := b.db.Another(ctx, "holds")
	if err != nil {
		return apart.HoldsResult{}, err
	}
	res, err := apart.Holds(ctx, b.bin, holdsURL, env)
	if err != nil {
		return res, fmt.Errorf("holds: %w", err)
	}
	return res, nil
}

// holdsOnly runs the title holds measurement alone (BENCH_ONLY=holds), prints its figures and
// writes them into the report of the last full run.
func (b *bench) holdsOnly(ctx context.Context) error {
	env, err := environment.DescribeMachine(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	rep := report.Report{Config: b.cfg, Env: env}
	if rep.Holds, err = b.measureHolds(ctx, env); err != nil {
		return err
	}
	t := &report.TargetRows{}
	rep.HoldsTargets(t)
	fmt.Println()
	for _, s := range []report.Section{{Title: "Targets", Header: []string{"target", "measured as", "result", "verdict"}, Rows: t.Rows}, rep.HoldsSection()} {
		fmt.Print(s.Text())
	}
	if b.cfg.Output == "" {
		return nil
	}
	if err := report.SpliceHolds(rep, b.cfg.Output, b.root); err != nil {
		return err
	}
	environment.Logf("wrote the title holds' figures into %s", b.cfg.Output)
	return nil
}
