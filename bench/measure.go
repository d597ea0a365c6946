package main

import (
	"context"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// measureThroughput runs the throughput cells against the main service and its peers: the
// service with sign-in on and, with BENCH_BEFORE, the service built at it, each a process of
// its own on a database of its own; and the main service's aggregate cache hits and misses
// during the commands cells. The peers are stopped once the cells are done, so that
// they weigh on none of the measurements after them.
func (b *bench) measureThroughput(ctx context.Context) ([]measure.Cell, measure.CacheResult, error) {
	var p measure.Peers
	if b.beforeBin != "" {
		svc, err := environment.StartBefore(ctx, b.beforeBin, b.db)
		if err != nil {
			return nil, measure.CacheResult{}, err
		}
		defer svc.StopLogged(ctx, "the service at BENCH_BEFORE")
		p.BeforeURL = svc.BaseURL
	}
	var err error
	if p.SignedIn, err = workload.StartSignedIn(ctx, b.idpBin, b.bin, b.db, figures.MaxOf(b.cfg.Concurrency)); err != nil {
		return nil, measure.CacheResult{}, err
	}
	defer p.SignedIn.Stop(ctx)
	watch := &measure.CacheWatch{MetricsURL: b.metricsURL}
	cells, err := measure.RunMeasurements(ctx, b.cfg, b.db.URL, b.svc.BaseURL, p, watch)
	return cells, watch.Result, err
}
