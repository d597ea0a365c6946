package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The aggregate cache's hit rate during the commands cells: the main service serves /metrics
// on a port of its own (METRICS_ADDR), read right before and right after each commands cell's
// measured run, so that the counts are the cell's own, its warm-up left out.

// The series read, and the label of the accounts' among them.
const (
	cacheLookupsSeries = "library_aggregate_cache_lookups_total"
	cacheBytesSeries   = "library_aggregate_cache_bytes"
	// cpuSeries is the service process's user and system CPU, from the client library's
	// process collector: read around each commands cell too, for the CPU per command.
	cpuSeries = "process_cpu_seconds_total"
)

// cacheAggregates are the aggregate types whose kept bytes the report shows.
var cacheAggregates = []string{"account", "book"}

// cacheResult is the accounts' cache lookups over each commands cell, and what the kept
// aggregates took after the last one.
type cacheResult struct {
	Cells []cacheCell
	Bytes map[string]float64 // library_aggregate_cache_bytes by aggregate, after the last cell
}

// cacheCell is one commands cell's account lookups, and the service's CPU over it.
type cacheCell struct {
	Concurrency  int
	Hits, Misses float64
	CPU          float64 // seconds of user and system time of the service over the cell
}

// rate is hits over lookups, 0 without any.
func (c cacheCell) rate() float64 {
	if c.Hits+c.Misses <= 0 {
		return 0
	}
	return c.Hits / (c.Hits + c.Misses)
}

// cacheWatch reads the cache's counters around each commands cell.
type cacheWatch struct {
	metricsURL string
	before     map[string]float64
	result     cacheResult
}

// watched is cmds, with w told when each of its cells starts and stops; cmds alone when w is
// nil.
func (w *cacheWatch) watched(cmds *commands) measurement {
	if w == nil {
		return cmds
	}
	return &watchedCommands{commands: cmds, watch: w}
}

// watchedCommands are commands whose cells a cacheWatch reads the counters around.
type watchedCommands struct {
	*commands
	watch *cacheWatch
}

func (m *watchedCommands) startCell(ctx context.Context) error { return m.watch.start(ctx) }
func (m *watchedCommands) stopCell(ctx context.Context, concurrency int) error {
	return m.watch.stop(ctx, concurrency)
}

func (w *cacheWatch) start(ctx context.Context) error {
	var err error
	w.before, err = scrapeMetrics(ctx, w.metricsURL)
	return err
}

func (w *cacheWatch) stop(ctx context.Context, concurrency int) error {
	after, err := scrapeMetrics(ctx, w.metricsURL)
	if err != nil {
		return err
	}
	delta := func(result string) float64 {
		key := seriesKey(cacheLookupsSeries, map[string]string{"aggregate": "account", "result": result})
		return after[key] - w.before[key]
	}
	cpu := seriesKey(cpuSeries, nil)
	c := cacheCell{Concurrency: concurrency, Hits: delta("hit"), Misses: delta("miss"), CPU: after[cpu] - w.before[cpu]}
	w.result.Cells = append(w.result.Cells, c)
	w.result.Bytes = map[string]float64{}
	for _, a := range cacheAggregates {
		w.result.Bytes[a] = after[seriesKey(cacheBytesSeries, map[string]string{"aggregate": a})]
	}
	logf("aggregate cache during commands at c=%d: %.0f hits, %.0f misses (%.1f%%), accounts %s",
		concurrency, c.Hits, c.Misses, 100*c.rate(), formatMB(int64(w.result.Bytes["account"])))
	return nil
}

// scrapeMetrics reads the aggregate cache's series from the Prometheus text at url, by
// seriesKey.
func scrapeMetrics(ctx context.Context, url string) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	s := bufio.NewScanner(resp.Body)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, "library_aggregate_cache_") && !strings.HasPrefix(line, cpuSeries+" ") {
			continue
		}
		key, value, err := parseSample(line)
		if err != nil {
			return nil, fmt.Errorf("GET /metrics: %w", err)
		}
		out[key] = value
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("GET /metrics: %w", err)
	}
	return out, nil
}

// parseSample reads a line of the text format without a timestamp, `name{a="x",b="y"} 12`,
// whose label values hold no comma or escaped quote, as the cache's series' don't.
func parseSample(line string) (string, float64, error) {
	series, v, ok := strings.Cut(line, " ")
	value, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if !ok || err != nil {
		return "", 0, fmt.Errorf("a sample without a value: %q", line)
	}
	name, rest, _ := strings.Cut(series, "{")
	labels := map[string]string{}
	for pair := range strings.SplitSeq(strings.TrimSuffix(rest, "}"), ",") {
		if pair == "" {
			continue
		}
		k, quoted, _ := strings.Cut(pair, "=")
		if labels[k], err = strconv.Unquote(quoted); err != nil {
			return "", 0, fmt.Errorf("a label that can't be read in %q", line)
		}
	}
	return seriesKey(name, labels), value, nil
}

// seriesKey names a series by its name and labels, whatever their order.
func seriesKey(name string, labels map[string]string) string {
	var pairs []string
	for k, v := range labels {
		pairs = append(pairs, k+"="+strconv.Quote(v))
	}
	slices.Sort(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// cacheSection is the hit rates.
func (r report) cacheSection() section {
	s := section{
		title: "Aggregate cache",
		notes: []string{
			fmt.Sprintf("The main service serves `/metrics` on a loopback port of its own (`METRICS_ADDR`), read right before and right after each commands cell's measured run (its warm-up left out). Each row is the difference of `%s{aggregate=\"account\"}` over that run: every lookup of an account among those the service keeps in memory, a *hit* being a payment decided without reading the account first, a *miss* one that read its snapshot and the events after it. The service runs at its default `AGGREGATE_CACHE_BYTES` (16 MiB per aggregate type), meant to keep the %d accounts with their windows of 100 keys; what the kept ones took is in the memory section.",
				cacheLookupsSeries, r.Config.Accounts),
		},
		align:  "|---|--:|--:|--:|--:|",
		header: []string{"account lookups during", "lookups", "hits", "misses", "hit rate"},
	}
	var all cacheCell
	for _, c := range r.Cache.Cells {
		s.rows = append(s.rows, cacheRow(fmt.Sprintf("commands at concurrency %d", c.Concurrency), c))
		all.Hits, all.Misses = all.Hits+c.Hits, all.Misses+c.Misses
	}
	if len(r.Cache.Cells) > 1 {
		s.rows = append(s.rows, cacheRow("every commands cell", all))
	}
	return s
}

func cacheRow(label string, c cacheCell) []string {
	return []string{label, fmt.Sprintf("%.0f", c.Hits+c.Misses), fmt.Sprintf("%.0f", c.Hits),
		fmt.Sprintf("%.0f", c.Misses), fmt.Sprintf("%.2f%%", 100*c.rate())}
}
