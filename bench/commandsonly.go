package main

import (
	"context"
	"fmt"
)

// commandsOnly runs the throughput cells alone (BENCH_ONLY=commands) and prints them with the
// targets on a command's cost and the load average around them. It writes nothing.
func (b *bench) commandsOnly(ctx context.Context) error {
	env, err := describeEnvironment(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	results, cache, err := b.measureThroughput(ctx)
	if err != nil {
		return err
	}
	env.LoadAfter = loadAverage()
	rep := report{Config: b.cfg, Env: env, Results: results, BeforeCommit: b.beforeCommit, Cache: cache}
	t := &targetRows{}
	rep.commandCostTargets(t)
	fmt.Println()
	fmt.Print(rep.throughputTable())
	fmt.Print(section{title: "Targets", header: []string{"target", "measured as", "result", "verdict"}, rows: t.rows}.text())
	return nil
}
