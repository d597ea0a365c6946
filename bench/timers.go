package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/report"
)

// measureTimers runs the timers measurement on a database of its own.
func (b *bench) measureTimers(ctx context.Context, env environment.Machine) (apart.TimersResult, error) {
	environment.Logf("timers: %d rounds of %s due timers, payments at concurrency %d alone and while they fire, on a database of their own",
		apart.TimerRounds, figures.Thousands(apart.TimerCount), apart.TimerConcurrency)
	timersURL, err := b.db.Another(ctx, "timers")
	if err != nil {
		return apart.TimersResult{}, err
	}
	res, err := apart.Timers(ctx, b.cfg, b.bin, timersURL, env)
	if err != nil {
		return res, fmt.Errorf("timers: %w", err)
	}
	return res, nil
}

// timersOnly runs the timers measurement alone (BENCH_ONLY=timers), prints its figures and
// writes them into the report of the last full run.
func (b *bench) timersOnly(ctx context.Context) error {
	env, err := environment.DescribeMachine(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	rep := report.Report{Config: b.cfg, Env: env}
	if rep.Timers, err = b.measureTimers(ctx, env); err != nil {
		return err
	}
	t := &report.TargetRows{}
	rep.TimersTargets(t)
	fmt.Println()
	for _, s := range []report.Section{{Title: "Targets", Header: []string{"target", "measured as", "result", "verdict"}, Rows: t.Rows}, rep.TimersSection()} {
		fmt.Print(s.Text())
	}
	if b.cfg.Output == "" {
		return nil
	}
	if err := report.SpliceTimers(rep, b.cfg.Output, b.root); err != nil {
		return err
	}
	environment.Logf("wrote the timers' figures into %s", b.cfg.Output)
	return nil
}
