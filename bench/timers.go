package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart/timercell"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/report"
)

// measureTimers runs the timers measurement on a database of its own.
func (b *bench) measureTimers(ctx context.Context, env environment.Machine) (timercell.TimersResult, error) {
	environment.Logf("timers: %d rounds of %s due timers, payments at concurrency %d alone and while they fire, on a database of their own",
		timercell.TimerRounds, figures.Thousands(timercell.TimerCount), timercell.TimerConcurrency)
	timersURL, err := b.db.Another(ctx, "timers")
	if err != nil {
		return timercell.TimersResult{}, err
	}
	res, err := timercell.Timers(ctx, b.cfg, b.bin, timersURL, env)
	if err != nil {
		return res, fmt.Errorf("timers: %w", err)
	}
	return res, nil
}

// timersOnly runs the timers measurement alone (BENCH_ONLY=timers), prints its figures and
// writes them into the report of the last full run.
func (b *bench) timersOnly(ctx context.Context) error {
	return b.runAlone(ctx, aloneCell{what: "the timers'",
		measure: func(ctx context.Context, rep *report.Report) (err error) {
			rep.Timers, err = b.measureTimers(ctx, rep.Env)
			return err
		},
		targets: report.Report.TimersTargets, section: report.Report.TimersSection, splice: report.SpliceTimers})
}
