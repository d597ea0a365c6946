package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart"
	"library/bench/internal/environment"
	"library/bench/internal/report"
)

// measureKiosks runs the kiosks' checkouts, over SIP2 and over HTTP, on a database of its own.
func (b *bench) measureKiosks(ctx context.Context, env environment.Machine) (apart.KiosksResult, error) {
	environment.Logf("kiosks: checkouts over SIP2 and over HTTP at %v at once, on a database of its own", apart.KioskLevels)
	kiosksURL, err := b.db.Another(ctx, "kiosks")
	if err != nil {
		return apart.KiosksResult{}, err
	}
	res, err := apart.Kiosks(ctx, b.cfg, b.bin, kiosksURL, env)
	if err != nil {
		return res, fmt.Errorf("kiosks: %w", err)
	}
	return res, nil
}

// kiosksOnly runs the kiosks' checkouts alone (BENCH_ONLY=sip), prints their figures and writes
// them into the report of the last full run.
func (b *bench) kiosksOnly(ctx context.Context) error {
	env, err := environment.DescribeMachine(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	rep := report.Report{Config: b.cfg, Env: env}
	if rep.Kiosks, err = b.measureKiosks(ctx, env); err != nil {
		return err
	}
	t := &report.TargetRows{}
	rep.KiosksTargets(t)
	fmt.Println()
	for _, s := range []report.Section{{Title: "Targets", Header: []string{"target", "measured as", "result", "verdict"}, Rows: t.Rows}, rep.KiosksSection()} {
		fmt.Print(s.Text())
	}
	if b.cfg.Output == "" {
		return nil
	}
	if err := report.SpliceKiosks(rep, b.cfg.Output, b.root); err != nil {
		return err
	}
	environment.Logf("wrote the kiosks' figures into %s", b.cfg.Output)
	return nil
}
