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
	env, err := environment.DescribeMachine(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	rep := report.Report{Config: b.cfg, Env: env}
	if rep.Titles, err = b.measureTitles(ctx, env); err != nil {
		return err
	}
	t := &report.TargetRows{}
	rep.TitlesTargets(t)
	fmt.Println()
	for _, s := range []report.Section{{Title: "Targets", Header: []string{"target", "measured as", "result", "verdict"}, Rows: t.Rows}, rep.TitlesSection()} {
		fmt.Print(s.Text())
	}
	if b.cfg.Output == "" {
		return nil
	}
	if err := report.SpliceTitles(rep, b.cfg.Output, b.root); err != nil {
		return err
	}
	environment.Logf("wrote the titles search's figures into %s", b.cfg.Output)
	return nil
}
