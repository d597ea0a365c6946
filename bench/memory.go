package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// memoryResult is the service process's memory, from /proc/<pid>/status.
type memoryResult struct {
	// RSSAfterLoad is VmRSS right after the throughput cells and the outbox's load.
	RSSAfterLoad int64 // bytes
	// Peak is VmHWM, the highest resident set size, at the end of the run.
	Peak int64 // bytes
}

// procStatus reads fields given in kB from /proc/<pid>/status, in bytes.
func procStatus(pid int, names ...string) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, fmt.Errorf("the service's memory: %w", err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]int64{}
	for line := range strings.Lines(string(b)) {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !want[name] {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return nil, fmt.Errorf("the service's memory: unexpected %q", strings.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("the service's memory: %q: %w", strings.TrimSpace(line), err)
		}
		out[name] = kb * 1024
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("the service's memory: no %s in /proc/%d/status", n, pid)
		}
	}
	return out, nil
}

// memorySection is the main service's memory, and what its aggregate cache took.
func (r report) memorySection() section {
	s := section{
		title:  "Memory",
		notes:  []string{fmt.Sprintf("Of the main service process, which served the throughput cells, the profile, the outbox and the stream lengths: its resident set from `/proc/<pid>/status`, and the service's own estimate of what the aggregates it keeps in memory take (`%s`, from its `/metrics`), read right after the last commands cell; `AGGREGATE_CACHE_BYTES` bounds each type's at 16 MiB by default.", cacheBytesSeries)},
		align:  "|---|--:|",
		header: []string{"memory", "size"},
		rows: [][]string{
			{"VmRSS after the throughput cells and the outbox's load", formatMB(r.Memory.RSSAfterLoad)},
			{"VmHWM (peak) at the end", formatMB(r.Memory.Peak)},
		},
	}
	for _, a := range cacheAggregates {
		if b, ok := r.Cache.Bytes[a]; ok {
			s.rows = append(s.rows, []string{fmt.Sprintf("aggregate cache, %ss, after the commands cells", a), formatMB(int64(b))})
		}
	}
	return s
}

func formatMB(bytes int64) string { return fmt.Sprintf("%.1f MB", float64(bytes)/1e6) }
