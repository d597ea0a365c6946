package main

import (
	"context"
	"fmt"

	"library/bench/internal/environment"
	"library/bench/internal/report"
)

// commandsOnly runs the throughput cells alone (BENCH_ONLY=commands) and prints them with the
// targets on a command's cost and the load average around them. It writes nothing.
func (b *bench) commandsOnly(ctx context.Context) error {
	env, err := environment.DescribeMachine(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	results, cache, err := b.measureThroughput(ctx)
	if err != nil {
		return err
	}
	env.LoadAfter = environment.LoadAverage()
	rep := report.Report{Config: b.cfg, Env: env, Results: results, BeforeCommit: b.beforeCommit, Cache: cache}
	t := &report.TargetRows{}
	rep.CommandCostTargets(t)
	fmt.Println()
	fmt.Print(rep.ThroughputTable())
	fmt.Print(report.Section{Title: "Targets", Header: []string{"target", "measured as", "result", "verdict"}, Rows: t.Rows}.Text())
	return nil
}
