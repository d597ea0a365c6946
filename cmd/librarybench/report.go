package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// report is a run's results and what they ran on.
type report struct {
	Config  config
	Env     environment
	Results []cell

	Outbox   outboxResult
	Relay    relayResult
	Takeover []takeoverResult
	Growth   []growthPoint
	Memory   memoryResult
	Catalog  catalogResult
}

// rows are the results as table rows: label, concurrency, ops/s, p50, p99, errors, ratio to
// the baseline at the same concurrency.
func (r report) rows() [][]string {
	base := map[int]float64{}
	for _, c := range r.Results {
		if c.Measurement == "baseline" {
			base[c.Concurrency] = c.Throughput()
		}
	}
	var rows [][]string
	for _, c := range r.Results {
		ratio := "—"
		if b := base[c.Concurrency]; b > 0 && c.Measurement != "baseline" {
			ratio = fmt.Sprintf("%.2f", c.Throughput()/b)
		}
		rows = append(rows, []string{
			c.Measurement,
			fmt.Sprint(c.Concurrency),
			fmt.Sprintf("%.0f", c.Throughput()),
			formatLatency(c.P50),
			formatLatency(c.P99),
			fmt.Sprint(c.Errors),
			ratio,
		})
	}
	return rows
}

func tableHeader() []string {
	return []string{"measurement", "concurrency", "ops/s", "p50", "p99", "errors", "vs baseline"}
}

// table is the results as aligned text, for the terminal.
func (r report) table() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	_, _ = fmt.Fprintln(w, strings.Join(tableHeader(), "\t")+"\t") // a strings.Builder does not fail
	for _, row := range r.rows() {
		_, _ = fmt.Fprintln(w, strings.Join(row, "\t")+"\t")
	}
	_ = w.Flush()
	fmt.Fprintf(&b, "load average before %s, after %s (%d cores)\n", r.Env.LoadBefore, r.Env.LoadAfter, r.Env.Cores)
	for _, c := range r.Results {
		if c.FirstError != "" {
			fmt.Fprintf(&b, "first error of %s at concurrency %d: %s\n", c.Measurement, c.Concurrency, c.FirstError)
		}
	}
	b.WriteString(r.sectionsText())
	return b.String()
}

// markdown is the whole report as docs/benchmarks.md.
func (r report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# Benchmarks")
	p("")
	p("Written by `go run ./cmd/librarybench` (%s per cell after a %s warm-up, %d accounts); run it",
		r.Config.Duration, r.Config.Warmup, r.Config.Accounts)
	p("again to replace this file. Settings: `BENCH_DURATION`, `BENCH_WARMUP`, `BENCH_CONCURRENCY`,")
	p("`BENCH_ACCOUNTS`, `BENCH_LENDERS`, `BENCH_IDLE_LOANS`, `BENCH_GROWTH_PAYMENTS`, `BENCH_OUTPUT`")
	p("(`-` for none) and `BENCH_DATABASE_URL` (a server where the run may create and drop databases;")
	p("unset, it starts a throwaway cluster with `scripts/postgres.sh`). The throughput table comes")
	p("first, then the targets, each met or not, and the outbox, slow relay and backlog, takeover,")
	p("stream length, memory and catalog measurements they come from.")
	p("")
	p("- **baseline**: PostgreSQL's own limit, with straight pgx and no HTTP or service code: in one")
	p("  transaction, read an account's stream and append one event, over %d streams, each worker", r.Config.Accounts)
	p("  on its own, with one connection per worker.")
	p("- **commands**: `POST /accounts/{id}/payments` of 1 cent with a fresh `Idempotency-Key`, over")
	p("  HTTP on keep-alive connections to the service's binary, spread over %d accounts that each", r.Config.Accounts)
	p("  owe %d cents.", startingFine)
	p("- **replays**: the same requests again with their keys; an answer that is not `201` with")
	p("  `Idempotent-Replayed: true` and the first answer's body counts as an error.")
	p("- **contention**: every worker pays into one account, a fresh one for each concurrency. In")
	p("  one process, commands on one stream take turns, so this measures one stream's pace: one")
	p("  append at a time. (The baseline spreads its work; contention has no baseline of its own.)")
	p("")
	p("Latencies are of the operations that succeeded; *vs baseline* is the throughput over the")
	p("baseline's at the same concurrency. The service runs with its default settings (its pool")
	p("included: pgx's default of at most max(4, cores) connections) and with `LOG_LEVEL=warn`; the")
	p("benchmark, the service and PostgreSQL share the machine, so check the load average below.")
	p("")
	p("| %s |", strings.Join(tableHeader(), " | "))
	p("|---|--:|--:|--:|--:|--:|--:|")
	for _, row := range r.rows() {
		p("| %s |", strings.Join(row, " | "))
	}
	var errs []string
	for _, c := range r.Results {
		if c.FirstError != "" {
			errs = append(errs, fmt.Sprintf("- %s at concurrency %d: `%s`", c.Measurement, c.Concurrency, c.FirstError))
		}
	}
	if len(errs) > 0 {
		p("")
		p("First error of each cell that had any:")
		p("")
		p("%s", strings.Join(errs, "\n"))
	}
	b.WriteString(r.sectionsMarkdown())
	p("")
	p("## Run on")
	p("")
	p("| | |")
	p("|---|---|")
	p("| date | %s |", r.Env.Date.Format(time.RFC3339))
	p("| commit | `%s` |", r.Env.Commit)
	p("| CPU | %s, %d cores |", r.Env.CPU, r.Env.Cores)
	p("| memory | %s |", r.Env.Memory)
	p("| load average (1, 5, 15 min) | %s before, %s after |", r.Env.LoadBefore, r.Env.LoadAfter)
	p("| Go | %s |", r.Env.GoVersion)
	p("| PostgreSQL | %s |", r.Env.PostgreSQL)
	for _, s := range r.Env.Settings {
		p("| `%s` | %s |", s.Name, s.Value)
	}
	return b.String()
}

// write writes the Markdown report to path, relative to root unless absolute.
func (r report) write(path, root string) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := os.WriteFile(path, []byte(r.markdown()), 0o644); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

func formatLatency(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", d.Seconds()*1000)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", d.Seconds()*1000)
	default:
		return fmt.Sprintf("%.0f µs", d.Seconds()*1e6)
	}
}
