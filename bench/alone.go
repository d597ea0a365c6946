package main

import (
	"context"
	"fmt"

	"library/bench/internal/environment"
	"library/bench/internal/report"
)

// aloneCell is a measurement that runs alone (BENCH_ONLY=...): how it fills a report, the
// report's parts it shows, and how its figures go into the report of the last full run.
type aloneCell struct {
	// what names the figures in the last line ("the timers'").
	what    string
	measure func(ctx context.Context, rep *report.Report) error
	targets func(r report.Report, t *report.TargetRows)
	section func(r report.Report) report.Section
	splice  func(rep report.Report, path, root string) error
}

// runAlone runs c on this machine, prints its targets and its section, and writes them into the
// report of the last full run (the Output), when there is one.
func (b *bench) runAlone(ctx context.Context, c aloneCell) error {
	env, err := environment.DescribeMachine(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	rep := report.Report{Config: b.cfg, Env: env}
	if err := c.measure(ctx, &rep); err != nil {
		return err
	}
	t := &report.TargetRows{}
	c.targets(rep, t)
	fmt.Println()
	for _, s := range []report.Section{{Title: "Targets", Header: []string{"target", "measured as", "result", "verdict"}, Rows: t.Rows}, c.section(rep)} {
		fmt.Print(s.Text())
	}
	if b.cfg.Output == "" {
		return nil
	}
	if err := c.splice(rep, b.cfg.Output, b.root); err != nil {
		return err
	}
	environment.Logf("wrote %s figures into %s", c.what, b.cfg.Output)
	return nil
}
