package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart/kioskcell"
	"library/bench/internal/environment"
	"library/bench/internal/report"
)

// measureKiosks runs the kiosks' checkouts, over SIP2 and over HTTP, on a database of its own.
func (b *bench) measureKiosks(ctx context.Context, env environment.Machine) (kioskcell.KiosksResult, error) {
	environment.Logf("kiosks: checkouts over SIP2 and over HTTP at %v at once, on a database of its own", kioskcell.KioskLevels)
	kiosksURL, err := b.db.Another(ctx, "kiosks")
	if err != nil {
		return kioskcell.KiosksResult{}, err
	}
	res, err := kioskcell.Kiosks(ctx, b.cfg, b.bin, kiosksURL, env)
	if err != nil {
		return res, fmt.Errorf("kiosks: %w", err)
	}
	return res, nil
}

// kiosksOnly runs the kiosks' checkouts alone (BENCH_ONLY=sip), prints their figures and writes
// them into the report of the last full run.
func (b *bench) kiosksOnly(ctx context.Context) error {
	return b.runAlone(ctx, aloneCell{what: "the kiosks'",
		measure: func(ctx context.Context, rep *report.Report) (err error) {
			rep.Kiosks, err = b.measureKiosks(ctx, rep.Env)
			return err
		},
		targets: report.Report.KiosksTargets, section: report.Report.KiosksSection, splice: report.SpliceKiosks})
}
