package report

import (
	"fmt"

	"library/bench/internal/figures"
	"library/bench/internal/measure"
)

// memorySection is the main service's memory, and what its aggregate cache took.
func (r Report) memorySection() Section {
	s := Section{
		Title:  "Memory",
		notes:  []string{fmt.Sprintf("Of the main service process, which served the throughput cells, the profile, the outbox and the stream lengths: its resident set from `/proc/<pid>/status`, and the service's own estimate of what the aggregates it keeps in memory take (`%s`, from its `/metrics`), read right after the last commands cell; `AGGREGATE_CACHE_BYTES` bounds each type's at 16 MiB by default.", measure.CacheBytesSeries)},
		align:  "|---|--:|",
		Header: []string{"memory", "size"},
		Rows: [][]string{
			{"VmRSS after the throughput cells and the outbox's load", figures.FormatMB(r.Memory.RSSAfterLoad)},
			{"VmHWM (peak) at the end", figures.FormatMB(r.Memory.Peak)},
		},
	}
	for _, a := range measure.CacheAggregates {
		if b, ok := r.Cache.Bytes[a]; ok {
			s.Rows = append(s.Rows, []string{fmt.Sprintf("aggregate cache, %ss, after the commands cells", a), figures.FormatMB(int64(b))})
		}
	}
	return s
}
