package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart/importcell"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/report"
)

// measureImport runs the catalogue import measurement on a database of its own.
func (b *bench) measureImport(ctx context.Context, env environment.Machine) (importcell.ImportResult, error) {
	environment.Logf("import: library import marc of %s generated records, the views catching up after it, and a bare COPY of as many rows, on a database of its own",
		figures.Thousands(b.cfg.ImportRecords))
	importURL, err := b.db.Another(ctx, "import")
	if err != nil {
		return importcell.ImportResult{}, err
	}
	serveEnv, err := importcell.DeployedRuntime(b.root)
	if err != nil {
		return importcell.ImportResult{}, err
	}
	res, err := importcell.Import(ctx, b.bin, importURL, b.tmp, b.cfg.ImportRecords, serveEnv, env)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// importOnly runs the catalogue import measurement alone (BENCH_ONLY=import), prints its
// figures and writes them into the report of the last full run.
func (b *bench) importOnly(ctx context.Context) error {
	return b.runAlone(ctx, aloneCell{what: "the catalogue import's",
		measure: func(ctx context.Context, rep *report.Report) (err error) {
			rep.Import, err = b.measureImport(ctx, rep.Env)
			return err
		},
		targets: report.Report.ImportTargets, section: report.Report.ImportSection, splice: report.SpliceImport})
}
