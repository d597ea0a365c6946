package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"library/bench/internal/apart"
	"library/bench/internal/apart/holdcell"
	"library/bench/internal/apart/importcell"
	"library/bench/internal/apart/kioskcell"
	"library/bench/internal/apart/timercell"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// Report is a run's results and what they ran on.
type Report struct {
	Config  environment.Config
	Env     environment.Machine
	Results []measure.Cell
	// BeforeCommit is the short hash of BENCH_BEFORE's revision; empty without it.
	BeforeCommit string

	Outbox   measure.OutboxResult
	Relay    apart.RelayResult
	Takeover []apart.TakeoverResult
	Growth   []measure.GrowthPoint
	Memory   measure.MemoryResult
	Catalog  apart.CatalogResult
	Profile  measure.ProfileResult
	Cache    measure.CacheResult
	Cold     apart.ColdResult
	Timers   timercell.TimersResult
	Holds    holdcell.HoldsResult
	Titles   apart.TitlesResult
	Kiosks   kioskcell.KiosksResult
	Import   importcell.ImportResult
}

// rows are the results as table rows: label, concurrency, ops/s, p50, p99, errors, ratio to
// the baseline, to append (simple) and, for commands with a token, to commands, at the same
// concurrency.
func (r Report) rows() [][]string {
	base, limit, cmds := map[int]float64{}, map[int]float64{}, map[int]float64{}
	for _, c := range r.Results {
		switch c.Measurement {
		case "baseline":
			base[c.Concurrency] = c.Throughput()
		case workload.AppendSimple:
			limit[c.Concurrency] = c.Throughput()
		case "commands":
			cmds[c.Concurrency] = c.Throughput()
		}
	}
	ratio := func(c measure.Cell, to map[int]float64, applies bool) string {
		if d := to[c.Concurrency]; d > 0 && applies {
			return fmt.Sprintf("%.2f", c.Throughput()/d)
		}
		return "—"
	}
	var rows [][]string
	for _, c := range r.Results {
		rows = append(rows, []string{
			c.Measurement,
			fmt.Sprint(c.Concurrency),
			fmt.Sprintf("%.0f", c.Throughput()),
			figures.FormatLatency(c.P50),
			figures.FormatLatency(c.P99),
			fmt.Sprint(c.Errors),
			ratio(c, base, c.Measurement != "baseline"),
			ratio(c, limit, appends(c.Measurement)),
			ratio(c, cmds, c.Measurement == workload.SignedInLabel),
		})
	}
	return rows
}

// appends reports whether the measurement's operations append to a stream as a command does,
// so that its throughput compares with the append limit's.
func appends(measurement string) bool {
	switch strings.TrimSuffix(measurement, workload.BeforeSuffix) {
	case "baseline", "commands", workload.SignedInLabel, workload.ContactsLabel, "contention":
		return true
	}
	return false
}

func tableHeader() []string {
	return []string{"measurement", "concurrency", "ops/s", "p50", "p99", "errors", "vs baseline", "vs append limit", "vs commands"}
}

// Table is the results as aligned text, for the terminal.
func (r Report) Table() string {
	return r.ThroughputTable() + r.sectionsText()
}

// ThroughputTable is the throughput cells, with the load average around them.
func (r Report) ThroughputTable() string {
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
	return b.String()
}

// markdown is the whole report as docs/benchmarks.md.
func (r Report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	b.WriteString(r.intro())
	p("| %s |", strings.Join(tableHeader(), " | "))
	p("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
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
	if r.BeforeCommit != "" {
		p("| before (`BENCH_BEFORE`) | `%s` (%s) |", r.BeforeCommit, r.Config.Before)
	}
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

// intro is the Markdown above the throughput table: the settings, what each row measures and
// what its ratios are over.
func (r Report) intro() string {
	n := r.Config.Accounts
	paragraphs := []string{
		"# Benchmarks",
		fmt.Sprintf("Written by `make bench` (`cd bench && go run .`; %s per cell after a %s warm-up, %d accounts); run it again to replace this file. Settings: `BENCH_DURATION`, `BENCH_WARMUP`, `BENCH_CONCURRENCY`, `BENCH_ACCOUNTS`, `BENCH_LENDERS`, `BENCH_IDLE_LOANS`, `BENCH_GROWTH_PAYMENTS`, `BENCH_COLD_EVENTS` (the stream lengths of the cold loads, default `2,1000,20000,100000`), `BENCH_COLD_ROUNDS`, `BENCH_IMPORT_RECORDS` (the records of the catalogue import, default 1,000,000), `BENCH_OUTPUT` (`-` for none), `BENCH_ONLY` (`timers`, `holds`, `titles-search`, `sip` or `import`: that measurement alone, written into this file in place of its section and its targets' rows; `commands`: the throughput cells alone, printed with the targets on a command's cost, nothing written), `BENCH_BEFORE` (a git revision: the service is built at it too, and its commands, contact changes and contention measured in the same run) and `BENCH_DATABASE_URL` (a server where the run may create and drop databases; unset, it starts a throwaway cluster with `scripts/postgres.sh`). The throughput table comes first, then the targets, each met or not, and the sealing of personal data, aggregate cache, profile, outbox, slow relay and backlog, takeover, stream length, memory, cold load, catalog, timers, title holds, titles search, kiosk checkouts and catalogue import measurements they come from.",
			r.Config.Duration, r.Config.Warmup, n),
	}
	items := []string{
		fmt.Sprintf("**baseline**: PostgreSQL's own limit for what a command does, with straight pgx and no HTTP or service code: in one transaction, read an account's stream and append one event, over %d streams, each worker on its own, with one connection per worker.", n),
		fmt.Sprintf("**%s**: PostgreSQL's durable limit for one single-row insert per transaction: each operation is one autocommit `INSERT INTO events (stream_id, version, type, data, metadata) VALUES (...)` of a payment's event (`PaymentReceived`, `{\"amount\":1}`, the baseline's metadata), with nothing read, each worker appending to streams of its own (%d streams in all) at increasing versions, so nothing conflicts, with one connection per worker. The statement goes in the simple query protocol, its values in its text (pgx's `QueryExecModeSimpleProtocol`), as pgbench does by default.", workload.AppendSimple, n),
		fmt.Sprintf("**%s**: the same with pgx's default: the statement prepared once per connection and cached, and only the values sent.", workload.AppendPrepared),
		fmt.Sprintf("**commands**: `POST /accounts/{id}/payments` of 1 cent with a fresh `Idempotency-Key`, over HTTP on keep-alive connections to the service's binary, spread over %d accounts that each owe %d cents.", n, workload.StartingFine),
		fmt.Sprintf("**%s**: the same payments against a service process of its own, on a database of its own, with sign-in on: `AUTH_ISSUER` is a devidp process (`cmd/devidp`) that this program starts on a free loopback port, `AUTH_AUDIENCE=%s`, and every request carries `Authorization: Bearer` with a librarian's access token, each worker's its own, fetched once before the cells (client credentials) and then reused, as a client reuses its token until it expires. The service checks a token's signature the first time it sees it and then remembers it, so the warm-up pays for the checks and the cells measure a known token's cost. Each cell runs right after the commands' at the same concurrency; *vs commands* is its throughput over theirs, which is the same work with `AUTH=off`.", workload.SignedInLabel, environment.TokenAudience),
		"**replays**: the same requests again with their keys; an answer that is not `201` with `Idempotent-Replayed: true` and the first answer's body counts as an error.",
		"**contention**: every worker pays into one account, a fresh one for each concurrency: one stream's pace, how many commands on one stream the service commits per second. (The baseline and the appends spread their work over streams; contention has no limit of its own.)",
		fmt.Sprintf("**%s**: `PUT /accounts/{id}` with a name and an email and a fresh `Idempotency-Key`, over %d accounts of their own (not the payments'), each opened with its first contact before the cells and each a worker's own; every request asks for the other of the account's two contacts, so that each records a `ContactChanged` whose name and email the service seals (see *Sealing personal data*).", workload.ContactsLabel, n),
	}
	if r.BeforeCommit != "" {
		items = append(items, fmt.Sprintf("**commands%[1]s**, **%[4]s%[1]s**, **contention%[1]s**: the same against the service built at `BENCH_BEFORE` (`%[2]s`), a process of its own at its default settings on a database of its own; each cell runs right after the current service's at the same concurrency (commands' after %[3]s), so that both meet the machine in the same state.", workload.BeforeSuffix, r.BeforeCommit, workload.SignedInLabel, workload.ContactsLabel))
	}
	var list []string
	for _, it := range items {
		list = append(list, "- "+strings.ReplaceAll(figures.Wrap(it, 94), "\n", "\n  "))
	}
	paragraphs = append(paragraphs, strings.Join(list, "\n"),
		fmt.Sprintf("Latencies are of the operations that succeeded; *vs baseline* is the throughput over the baseline's at the same concurrency, and *vs append limit* over %s's, for the rows that append as a command does. The service runs with its default settings (its pool included: pgx's default of at most max(4, cores) connections), with `LOG_LEVEL=warn`, `RATE_LIMIT_EXEMPT_LOOPBACK=true` (the benchmark's workers are one client on loopback), and, but for commands with a token, without sign-in (`AUTH=off`, with an `ADMIN_TOKEN` that the benchmark sends to read `/status`); the benchmark, the service and PostgreSQL share the machine, so check the load average below.", workload.AppendSimple))
	var b strings.Builder
	for _, para := range paragraphs {
		if !strings.HasPrefix(para, "- ") {
			para = figures.Wrap(para, 96)
		}
		b.WriteString(para + "\n\n")
	}
	return b.String()
}

// Write writes the Markdown report to path, relative to root unless absolute.
func (r Report) Write(path, root string) error {
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
