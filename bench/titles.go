package main

import (
	"context"
	"fmt"

	"library/bench/internal/apart"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/report"
)

// measureTitles runs the titles search measurement on a database of its own.
func (b *bench) measureTitles(ctx context.Context, env environment.Machine) (apart.TitlesResult, error) {
	environment.Logf("titles: %s titles of %d copies each, searched through GET /titles, on a database of their own",
		figures.Thousands(apart.TitlesCount), apart.TitlesCopies)
	titlesURL, err := b.db.Another(ctx, "titles")
	if err != nil {
		return apart.TitlesResult{}, err
	}
	res, err := apart.Titles(ctx, b.bin, titlesURL, env)
	if err != nil {
		return res, fmt.Errorf("titles: %w", err)
	}
	return res, nil
}

// titlesOnly runs the titles search measurement alone (BENCH_ONLY=titles-search), prints its
// figures and writes them into the report of the last full run.
func (b *bench) titlesOnly(ctx context.Context) error {
	return b.runAlone(ctx, aloneCell{what: "the titles search's",
		measure: func(ctx context.Context, rep *report.Report) (err error) {
			rep.Titles, err = b.measureTitles(ctx, rep.Env)
			return err
		},
		targets: report.Report.TitlesTargets, section: report.Report.TitlesSection, splice: report.SpliceTitles})
}
