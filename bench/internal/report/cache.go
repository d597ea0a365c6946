package report

import (
	"fmt"

	"library/bench/internal/measure"
)

// cacheSection is the hit rates.
func (r Report) cacheSection() Section {
	s := Section{
		Title: "Aggregate cache",
		notes: []string{
			fmt.Sprintf("The main service serves `/metrics` on a loopback port of its own (`METRICS_ADDR`), read right before and right after each commands cell's measured run (its warm-up left out). Each row is the difference of `%s{aggregate=\"account\"}` over that run: every lookup of an account among those the service keeps in memory, a *hit* being a payment decided without reading the account first, a *miss* one that read its snapshot and the events after it. The service runs at its default `AGGREGATE_CACHE_BYTES` (16 MiB per aggregate type), meant to keep the %d accounts with their windows of 100 keys; what the kept ones took is in the memory section.",
				measure.CacheLookupsSeries, r.Config.Accounts),
		},
		align:  "|---|--:|--:|--:|--:|",
		Header: []string{"account lookups during", "lookups", "hits", "misses", "hit rate"},
	}
	var all measure.CacheCell
	for _, c := range r.Cache.Cells {
		s.Rows = append(s.Rows, measure.CacheRow(fmt.Sprintf("commands at concurrency %d", c.Concurrency), c))
		all.Hits, all.Misses = all.Hits+c.Hits, all.Misses+c.Misses
	}
	if len(r.Cache.Cells) > 1 {
		s.Rows = append(s.Rows, measure.CacheRow("every commands cell", all))
	}
	return s
}
