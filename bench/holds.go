package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart/holdcell"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/report"
)

// measureHolds runs the title holds measurement on a database of its own.
func (b *bench) measureHolds(ctx context.Context, env environment.Machine) (holdcell.HoldsResult, error) {
	environment.Logf("holds: a title with %s holds waiting and %d copies, returns at concurrency %d, on a database of its own",
		figures.Thousands(holdcell.HoldsQueue), holdcell.HoldsCopies, holdcell.HoldsConcurrency)
	holdsURL, err := b.db.Another(ctx, "holds")
	if err != nil {
		return holdcell.HoldsResult{}, err
	}
	res, err := holdcell.Holds(ctx, b.bin, holdsURL, env)
	if err != nil {
		return res, fmt.Errorf("holds: %w", err)
	}
	return res, nil
}

// holdsOnly runs the title holds measurement alone (BENCH_ONLY=holds), prints its figures and
// writes them into the report of the last full run.
func (b *bench) holdsOnly(ctx context.Context) error {
	return b.runAlone(ctx, aloneCell{what: "the title holds'",
		measure: func(ctx context.Context, rep *report.Report) (err error) {
			rep.Holds, err = b.measureHolds(ctx, rep.Env)
			return err
		},
		targets: report.Report.HoldsTargets, section: report.Report.HoldsSection, splice: report.SpliceHolds})
}
