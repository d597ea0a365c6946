package measure

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// The aggregate cache's hit rate during the commands cells: the main service serves /metrics
// on a port of its own (METRICS_ADDR), read right before and right after each commands cell's
// measured run, so that the counts are the cell's own, its warm-up left out.

// The series read, and the label of the accounts' among them.
const (
	CacheLookupsSeries = "library_aggregate_cache_lookups_total"
	CacheBytesSeries   = "library_aggregate_cache_bytes"
	// cpuSeries is the service process's user and system CPU, from the client library's
	// process collector: read around each commands cell too, for the CPU per command.
	cpuSeries = "process_cpu_seconds_total"
)

// CacheAggregates are the aggregate types whose kept bytes the report shows.
var CacheAggregates = []string{"account", "book"}

// CacheResult is the accounts' cache lookups over each commands cell, and what the kept
// aggregates took after the last one.
type CacheResult struct {
	Cells []CacheCell
	Bytes map[string]float64 // library_aggregate_cache_bytes by aggregate, after the last cell
}

// CacheCell is one commands cell's account lookups, and the service's CPU over it.
type CacheCell struct {
	Concurrency  int
	Hits, Misses float64
	CPU          float64 // seconds of user and system time of the service over the cell
}

// rate is hits over lookups, 0 without any.
func (c CacheCell) rate() float64 {
	if c.Hits+c.Misses <= 0 {
		return 0
	}
	return c.Hits / (c.Hits + c.Misses)
}

// CacheWatch reads the cache's counters around each commands cell.
type CacheWatch struct {
	MetricsURL string
	before     map[string]float64
	Result     CacheResult
}

// watched is cmds, with w told when each of its cells starts and stops; cmds alone when w is
// nil.
func (w *CacheWatch) watched(cmds *workload.Commands) workload.Measurement {
	if w == nil {
		return cmds
	}
	return &watchedCommands{Commands: cmds, watch: w}
}

// watchedCommands are commands whose cells a cacheWatch reads the counters around.
type watchedCommands struct {
	*workload.Commands
	watch *CacheWatch
}

func (m *watchedCommands) startCell(ctx context.Context) error { return m.watch.start(ctx) }

func (m *watchedCommands) stopCell(ctx context.Context, concurrency int) error {
	return m.watch.Stop(ctx, concurrency)
}

func (w *CacheWatch) start(ctx context.Context) error {
	var err error
	w.before, err = scrapeMetrics(ctx, w.MetricsURL)
	return err
}

// Stop reads the counters after a cell of the given concurrency and records the cell.
func (w *CacheWatch) Stop(ctx context.Context, concurrency int) error {
	after, err := scrapeMetrics(ctx, w.MetricsURL)
	if err != nil {
		return err
	}
	delta := func(result string) float64 {
		key := seriesKey(CacheLookupsSeries, map[string]string{"aggregate": "account", "result": result})
		return after[key] - w.before[key]
	}
	cpu := seriesKey(cpuSeries, nil)
	c := CacheCell{Concurrency: concurrency, Hits: delta("hit"), Misses: delta("miss"), CPU: after[cpu] - w.before[cpu]}
	w.Result.Cells = append(w.Result.Cells, c)
	w.Result.Bytes = map[string]float64{}
	for _, a := range CacheAggregates {
		w.Result.Bytes[a] = after[seriesKey(CacheBytesSeries, map[string]string{"aggregate": a})]
	}
	environment.Logf("aggregate cache during commands at c=%d: %.0f hits, %.0f misses (%.1f%%), accounts %s",
		concurrency, c.Hits, c.Misses, 100*c.rate(), figures.FormatMB(int64(w.Result.Bytes["account"])))
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

// CacheRow is c as a table row under label.
func CacheRow(label string, c CacheCell) []string {
	return []string{label, fmt.Sprintf("%.0f", c.Hits+c.Misses), fmt.Sprintf("%.0f", c.Hits),
		fmt.Sprintf("%.0f", c.Misses), fmt.Sprintf("%.2f%%", 100*c.rate())}
}
