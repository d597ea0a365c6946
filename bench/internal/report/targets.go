package report

import (
	"fmt"
	"strings"
	"time"

	"library/bench/internal/apart"
	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// The sections after the throughput table: the targets, each met or not, then the
// outbox, relay, takeover, growth and memory results they come from.

// Section is a titled table with notes (Markdown) above it.
type Section struct {
	Title  string
	notes  []string
	lines  []string // after the notes, each a line as it is, in the terminal too
	align  string   // the Markdown alignment row
	Header []string
	Rows   [][]string
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "**not met**"
}

func (r Report) cellAt(measurement string, concurrency int) (measure.Cell, bool) {
	for _, c := range r.Results {
		if c.Measurement == measurement && c.Concurrency == concurrency {
			return c, true
		}
	}
	return measure.Cell{}, false
}

// TargetRows are the targets table's rows.
type TargetRows struct{ Rows [][]string }

// row is a target, what was measured against it, the result and the verdict.
func (t *TargetRows) row(target, as, result, verdict string) {
	t.Rows = append(t.Rows, []string{target, as, result, verdict})
}

// add is a target, what was measured against it, the result and whether it was met.
func (t *TargetRows) add(target, as, result string, met bool) {
	t.row(target, as, result, verdict(met))
}

// missing is a target that this run did not measure.
func (t *TargetRows) missing(target, as string) { t.row(target, as, "—", "not measured") }

// info is a figure shown beside the targets, with none of its own.
func (t *TargetRows) info(what, as, result string) { t.row(what, as, result, "no target") }

// targets is each target, what was measured against it, and whether it was met.
func (r Report) targets() Section {
	t := &TargetRows{}
	r.throughputTargets(t)
	r.CommandCostTargets(t)
	r.cpuTarget(t)
	o := r.Outbox
	t.add("outbox commit to SMTP < 100 ms at idle", fmt.Sprintf("p99 of %d loans, one at a time", o.IdleLoans), figures.FormatLatency(o.IdleP99), o.IdleP99 < 100*time.Millisecond)
	t.add("outbox ≥ 500 emails/s", fmt.Sprintf("loans through to SMTP per second, first loan to last email, %d lenders", o.Lenders), fmt.Sprintf("%.0f /s", o.EmailsPerSecond), o.EmailsPerSecond >= 500)
	slow, drain := r.Relay.Slow, r.Relay.Drain
	t.add(fmt.Sprintf("outbox ≥ 100 emails/s at %s per message", figures.FormatLatency(apart.SlowRelayDelay)),
		fmt.Sprintf("%d loans, %d lenders, first loan to last email", slow.Loans, apart.RelayLenders), fmt.Sprintf("%.0f /s", slow.EmailsPerSecond), slow.EmailsPerSecond >= 100)
	t.add("outbox drains a backlog ≥ 1000 emails/s at 0 ms", fmt.Sprintf("%d emails after a 421 outage, first email to last", drain.Loans),
		fmt.Sprintf("%.0f /s", drain.EmailsPerSecond), drain.EmailsPerSecond >= 1000)
	for _, to := range r.Takeover {
		limit, label := time.Second, "1 s"
		if to.Signal == "terminated" {
			limit, label = 200*time.Millisecond, "200 ms"
		}
		t.add(fmt.Sprintf("takeover after %s < %s", signalName(to.Signal), label),
			fmt.Sprintf("slowest of %d rounds", len(to.Times)), figures.FormatLatency(to.Max), to.Max < limit)
	}
	if n := len(r.Growth); n > 1 {
		last := r.Growth[n-1]
		t.add(fmt.Sprintf("command at %d events ≤ 2 × at %d", last.Events, r.Growth[0].Events), "p50 of payments, concurrency 1",
			fmt.Sprintf("%.2f ×", last.Ratio), last.Ratio <= 2)
	}
	r.coldTargets(t)
	r.TimersTargets(t)
	t.add("RSS under load < 60 MB", "VmRSS after the load", figures.FormatMB(r.Memory.RSSAfterLoad), r.Memory.RSSAfterLoad < 60e6)
	c := r.Catalog
	t.add(fmt.Sprintf("catalog first page and a search at %s books, p99 < 50 ms", figures.Thousands(c.Books)),
		fmt.Sprintf("p99 of %d requests each, one at a time", apart.CatalogRequests),
		fmt.Sprintf("%s, %s", figures.FormatLatency(c.FirstPage.P99), figures.FormatLatency(c.Search.P99)),
		c.FirstPage.P99 < 50*time.Millisecond && c.Search.P99 < 50*time.Millisecond)
	r.HoldsTargets(t)
	r.TitlesTargets(t)
	r.KiosksTargets(t)
	r.ImportTargets(t)
	return Section{
		Title:  "Targets",
		align:  "|---|---|--:|---|",
		Header: []string{"target", "measured as", "result", "verdict"},
		Rows:   t.Rows,
	}
}

// throughputTargets adds the targets on the throughput table: commands against the append
// limit (at concurrency 1 for information only), the current service against the one at
// BENCH_BEFORE, replays against commands.
func (r Report) throughputTargets(t *TargetRows) {
	for _, c := range []int{1, 8, 32} {
		target, as := "commands ≥ 1.0 × "+workload.AppendSimple, fmt.Sprintf("ops/s at concurrency %d", c)
		if c == 1 {
			target = "commands against " + workload.AppendSimple
		}
		limit, okL := r.cellAt(workload.AppendSimple, c)
		cmds, okC := r.cellAt("commands", c)
		switch ratio := cmds.Throughput() / limit.Throughput(); {
		case !okL || !okC || limit.Throughput() <= 0:
			t.missing(target, as+" (not in BENCH_CONCURRENCY)")
		case c == 1:
			t.info(target, as, fmt.Sprintf("%.2f × (%.0f, limit %.0f)", ratio, cmds.Throughput(), limit.Throughput()))
		default:
			t.add(target, as, fmt.Sprintf("%.2f × (%.0f, limit %.0f)", ratio, cmds.Throughput(), limit.Throughput()), ratio >= 1)
		}
	}
	r.signInTarget(t)
	r.sealingTarget(t)

	unmeasured := " (not in BENCH_CONCURRENCY)"
	if r.BeforeCommit == "" {
		unmeasured = " (needs BENCH_BEFORE)"
	}
	target, as := "one hot stream (contention) ≥ 2 × before", "ops/s at concurrency 8"
	hot, okH := r.cellAt("contention", 8)
	was, okW := r.cellAt("contention"+workload.BeforeSuffix, 8)
	if okH && okW && was.Throughput() > 0 {
		ratio := hot.Throughput() / was.Throughput()
		t.add(target, as, fmt.Sprintf("%.2f × (%.0f, before %.0f)", ratio, hot.Throughput(), was.Throughput()), ratio >= 2)
	} else {
		t.missing(target, as+unmeasured)
	}

	target, as = "commands p50 within 10% of before (≤ 1.10 ×)", "p50 of commands at concurrency 1"
	cmds, okC := r.cellAt("commands", 1)
	was, okW = r.cellAt("commands"+workload.BeforeSuffix, 1)
	if okC && okW && was.P50 > 0 {
		ratio := float64(cmds.P50) / float64(was.P50)
		t.add(target, as, fmt.Sprintf("%.2f × (%s, before %s)", ratio, figures.FormatLatency(cmds.P50), figures.FormatLatency(was.P50)), ratio <= 1.10)
	} else {
		t.missing(target, as+unmeasured)
	}

	for _, c := range r.Config.Concurrency {
		cmds, okC := r.cellAt("commands", c)
		reps, okR := r.cellAt("replays", c)
		if okC && okR && cmds.Throughput() > 0 {
			ratio := reps.Throughput() / cmds.Throughput()
			t.add("replays ≥ 2 × commands", fmt.Sprintf("ops/s at concurrency %d", c), fmt.Sprintf("%.2f ×", ratio), ratio >= 2)
		}
	}
}

// signInTarget adds the cost of sign-in: commands with a token against commands, which run
// with AUTH=off.
func (r Report) signInTarget(t *TargetRows) {
	target := workload.SignedInLabel + " ≥ 0.90 × commands (cost at most 10% more)"
	as := "ops/s at concurrency 8, commands with AUTH=off"
	signed, okS := r.cellAt(workload.SignedInLabel, 8)
	open, okO := r.cellAt("commands", 8)
	if !okS || !okO || open.Throughput() <= 0 {
		t.missing(target, as+" (not in BENCH_CONCURRENCY)")
		return
	}
	ratio := signed.Throughput() / open.Throughput()
	t.add(target, as, fmt.Sprintf("%.2f × (%.0f, without %.0f)", ratio, signed.Throughput(), open.Throughput()), ratio >= 0.90)
}

// cpuTarget adds the service's CPU per payment, from the profile's run.
func (r Report) cpuTarget(t *TargetRows) {
	p := r.Profile
	target := "service CPU per payment ≤ 150 µs at concurrency 32"
	as := fmt.Sprintf("user+sys from /proc/<pid>/stat over the profile's %d payments at concurrency %d", p.Commands, p.Concurrency)
	switch {
	case p.Commands == 0:
		t.missing(target, as)
	case p.Concurrency != 32:
		t.row(target, as, figures.FormatLatency(p.PerCommand()), "not measured at 32 (BENCH_CONCURRENCY)")
	default:
		t.add(target, as, figures.FormatLatency(p.PerCommand()), p.PerCommand() <= 150*time.Microsecond)
	}
}

// signalName turns Go's description of a signal back into its name.
func signalName(s string) string {
	switch s {
	case "killed":
		return "SIGKILL"
	case "terminated":
		return "SIGTERM"
	}
	return s
}

func (r Report) sections() []Section {
	o := r.Outbox
	outbox := Section{
		Title: "Outbox",
		notes: []string{
			fmt.Sprintf("The service sends loan emails to an SMTP server in this program (`SMTP_URL=smtp://127.0.0.1:PORT?tls=none`), which records when it accepts each message, by the loan's position, which its Message-ID `<notifications.{position}.{recorded}.{installation}@{domain}>` carries. The time is from the lend's `201` reaching the client (after the commit) to the server accepting that loan's email, so it can be slightly negative when the email is faster than the answer. At idle: %d loans one at a time, each after the previous email; each adds its book first, and a processor that read more than one event waits 20 ms (its read interval) before it reads again, which is most of the idle figure: a loan after a quiet spell is read at once. Under load: %d lenders, each lending books added beforehand (%d of them), one after another, for %s; *to the last email* is every loan's email over the time from the start of the load to the last of them, the backlog's drain included: loans through to the SMTP server per second, which the target is judged on. *while lending* is the emails the server accepted before the lenders stopped, over the time they lent: the outbox, with up to 16 emails in flight (`SMTP_MAX_IN_FLIGHT`'s default), shares the machine's two cores with eight lenders going flat out, PostgreSQL and this program. *after lending* is the pace at which it sends the backlog once they stop.", o.IdleLoans, o.Lenders, o.BooksAdded, r.Config.Duration),
		},
		align:  "|---|--:|",
		Header: []string{"outbox", "result"},
		Rows: [][]string{
			{"before idle: events the outbox had still to read", fmt.Sprintf("%d (read in %s)", o.InitialLag, figures.FormatLatency(o.CatchUp))},
			{"idle: commit to SMTP p50", figures.FormatLatency(o.IdleP50)},
			{"idle: commit to SMTP p99", figures.FormatLatency(o.IdleP99)},
			{"idle: fastest, slowest", figures.FormatLatency(o.IdleMin) + ", " + figures.FormatLatency(o.IdleMax)},
			{"idle: loans whose email took over 100 ms", overList(o.IdleOver)},
			{"load: loans made", fmt.Sprintf("%d (%.0f /s, %d errors)", o.LoadLoans, o.LoansPerSecond, o.LoadErrors)},
			{"load: emails/s (to the last email)", fmt.Sprintf("%.0f", o.EmailsPerSecond)},
			{"load: emails/s (while lending)", fmt.Sprintf("%.0f", o.EmailsInWindow)},
			{"load: emails/s (after lending, the backlog)", fmt.Sprintf("%.0f", o.DrainPerSecond)},
			{"load: last email after the load ended", figures.FormatLatency(o.DrainAfter)},
			{"load: commit to SMTP p50", figures.FormatLatency(o.LoadP50)},
			{"load: commit to SMTP p99", figures.FormatLatency(o.LoadP99)},
			{"load: emails missing, sent twice", fmt.Sprintf("%d, %d", o.Missing, o.Duplicates)},
		},
	}
	if o.LoadFirstError != "" {
		outbox.notes = append(outbox.notes, "First error under load: `"+o.LoadFirstError+"`")
	}

	takeover := Section{
		Title: "Takeover",
		notes: []string{
			fmt.Sprintf("Two processes of the binary on a database of their own and the same SMTP server. The first holds every lease (its `/status` says so) before the second starts; a loan's email shows the holder at work; then the holder gets the signal, a book is lent through the other process at once, and the time is from the signal to the server accepting that loan's email. %d rounds per signal, a fresh pair each round.", apart.TakeoverRounds),
		},
		align:  "|---|--:|--:|---|",
		Header: []string{"the holder gets", "median", "slowest", "every round"},
	}
	for _, t := range r.Takeover {
		var all []string
		for _, d := range t.Times {
			all = append(all, figures.FormatLatency(d))
		}
		takeover.Rows = append(takeover.Rows, []string{signalName(t.Signal), figures.FormatLatency(t.Median), figures.FormatLatency(t.Max), strings.Join(all, ", ")})
	}

	growth := Section{
		Title: "Stream length",
		notes: []string{
			fmt.Sprintf("A payment with a fresh key into an account whose stream already holds N events (`FineCharged`, written straight into the events table with a `chargeFine` command's metadata), one at a time: %d timed after %d untimed, so the stream ends %d events longer.", r.Config.GrowthPayments, measure.GrowthWarmups, r.Config.GrowthPayments+measure.GrowthWarmups),
		},
		align:  "|--:|--:|--:|--:|",
		Header: []string{"events", "p50", "p99", "p50 vs the shortest"},
	}
	for _, g := range r.Growth {
		growth.Rows = append(growth.Rows, []string{fmt.Sprint(g.Events), figures.FormatLatency(g.P50), figures.FormatLatency(g.P99), fmt.Sprintf("%.2f ×", g.Ratio)})
	}

	return []Section{r.targets(), r.sealingSection(), r.cacheSection(), r.profileSection(), outbox, r.relaySection(), takeover, growth,
		r.memorySection(), r.coldSection(), r.catalogSection(), r.TimersSection(), r.HoldsSection(), r.TitlesSection(),
		r.KiosksSection(), r.ImportSection()}
}

// text is the sections as aligned text, for the terminal.
func (r Report) sectionsText() string {
	var b strings.Builder
	for _, s := range r.sections() {
		b.WriteString(s.Text())
	}
	return b.String()
}

// sectionsMarkdown is the sections as Markdown, each under a heading.
func (r Report) sectionsMarkdown() string {
	var b strings.Builder
	for _, s := range r.sections() {
		b.WriteString(s.markdown())
	}
	return b.String()
}

// overList is loan numbers, or "none".
func overList(loans []int) string {
	if len(loans) == 0 {
		return "none"
	}
	var s []string
	for _, n := range loans {
		s = append(s, fmt.Sprintf("#%d", n))
	}
	return strings.Join(s, ", ")
}
