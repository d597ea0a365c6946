package report

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"library/bench/internal/apart/timercell"
	"library/bench/internal/figures"
	"library/bench/internal/report/splice"
)

// The timers' figures: their targets, their section, and, for a run of BENCH_ONLY=timers, the
// splice that puts them into the last full run's report.

// The timers' targets: the rate, and what the payments may lose while the timers fire.
const (
	timersFloorRate = 1000
	timersFloor     = 0.95
)

// timersTargetPrefix begins the name of each of the timers' targets, so that a run of the
// timers alone finds its rows in the report.
const timersTargetPrefix = "timers: "

// TimersTargets adds the timers' targets.
func (r Report) TimersTargets(t *TargetRows) {
	x := r.Timers
	rate := fmt.Sprintf("%s%s due timers fire ≥ %s /s", timersTargetPrefix, figures.Thousands(timercell.TimerCount), figures.Thousands(timersFloorRate))
	as := fmt.Sprintf("median of %d rounds, the outbox's due-soon reminders alone, first email to last timer forgotten", timercell.TimerRounds)
	ratio := fmt.Sprintf("%spayments while they fire ≥ %.2f × alone (hurt at most 5%%)", timersTargetPrefix, timersFloor)
	ratioAs := fmt.Sprintf("medians of %d rounds of payments at concurrency %d, in turns", timercell.TimerRounds, timercell.TimerConcurrency)
	if len(x.Rounds) == 0 {
		t.missing(rate, as)
		t.missing(ratio, ratioAs)
		return
	}
	t.add(rate, as, fmt.Sprintf("%.0f /s", x.FireRate), x.FireRate >= timersFloorRate)
	t.info(timersTargetPrefix+"the same while payments run", "median of the same rounds", fmt.Sprintf("%.0f /s", x.FireRateLoaded))
	t.add(ratio, ratioAs, fmt.Sprintf("%.2f × (%.0f, alone %.0f)", x.Ratio, x.WithOps, x.AloneOps), x.Ratio >= timersFloor)
}

// TimersSection is each round of the timers measurement, and the medians.
func (r Report) TimersSection() Section {
	x := r.Timers
	s := Section{
		Title: "Timers",
		notes: []string{
			fmt.Sprintf("A service process of its own, at its default settings (up to 16 emails in flight), on a database of its own, sending to an SMTP server of its own. %d members, each at an email domain of their own (at most 4 emails go to one domain at once), borrow a book each. Each run writes %s due-soon reminder timers for those loans straight into `processor_timers`, all due already, as a day's reminders are after an outage: %d per loan, each under a key of its own, so each sends an email with a Message-ID of its own; the outbox fires them under its lease, reading the book and the member, sending, recording the email, forgetting the timer. The loop finds timers written behind its back at its next look (at most a second; *found after*), which the rate leaves out: it is %s over the time from the first email the server accepted to the last timer forgotten. *payments* are the commands cell's (`POST /accounts/{id}/payments`, a fresh key each) at concurrency %d over %d accounts: alone, for `BENCH_DURATION` after `BENCH_WARMUP`; while the timers fire, after the same warm-up, for `BENCH_DURATION` from the first reminder (the timers' rate under payments is the reminders of that window over its length; the rest then fire alone). While the log grows, the outbox's timers give way to the commands: one at a time, resting nine times as long as each fire took. Each of %d rounds runs payments alone, the timers alone, and payments while timers fire, the order turned by one each round; the targets are judged on the medians.",
				timercell.TimerLoans, figures.Thousands(timercell.TimerCount), timercell.TimerCount/timercell.TimerLoans, figures.Thousands(timercell.TimerCount), timercell.TimerConcurrency, x.Accounts, timercell.TimerRounds),
		},
		align:  "|--:|---|--:|--:|--:|--:|--:|",
		Header: []string{"round", "order", "payments alone /s", "payments while timers fire /s", "ratio", "timers alone /s (found after)", "timers under payments /s (found after)"},
	}
	if len(x.Rounds) == 0 {
		s.lines = append(s.lines, "Not measured in this run.")
		return s
	}
	e := x.Env
	s.lines = append(s.lines, fmt.Sprintf("**%s due timers fired at %.0f /s alone, %.0f /s while payments ran; payments while they fired: %.2f × alone.** Measured %s, commit `%s`, load average %s before, %s after.",
		figures.Thousands(timercell.TimerCount), x.FireRate, x.FireRateLoaded, x.Ratio, e.Date.Format(time.RFC3339), e.Commit, e.LoadBefore, e.LoadAfter))
	fire := func(f timercell.TimerFire) string {
		out := fmt.Sprintf("%.0f (%s)", f.PerSecond, figures.FormatLatency(f.Found))
		if f.Emails != timercell.TimerCount {
			out += fmt.Sprintf(", **%d emails**", f.Emails)
		}
		return out
	}
	for i, round := range x.Rounds {
		ratio := "—"
		if a := round.Alone.Throughput(); a > 0 {
			ratio = fmt.Sprintf("%.2f ×", round.With.Throughput()/a)
		}
		s.Rows = append(s.Rows, []string{fmt.Sprint(i + 1), strings.Join(round.Order, ", "), fmt.Sprintf("%.0f", round.Alone.Throughput()),
			fmt.Sprintf("%.0f", round.With.Throughput()), ratio, fire(round.Fire), fire(round.FireLoaded)})
	}
	s.Rows = append(s.Rows, []string{"median", "", fmt.Sprintf("%.0f", x.AloneOps), fmt.Sprintf("%.0f", x.WithOps),
		fmt.Sprintf("%.2f ×", x.Ratio), fmt.Sprintf("%.0f", x.FireRate), fmt.Sprintf("%.0f", x.FireRateLoaded)})
	return s
}

// markdown is the section as the report has it, under its heading.
func (s Section) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s\n\n", s.Title)
	for _, n := range s.notes {
		fmt.Fprintf(&b, "%s\n\n", figures.Wrap(n, 96))
	}
	for _, l := range s.lines {
		fmt.Fprintf(&b, "%s\n\n", l)
	}
	fmt.Fprintf(&b, "| %s |\n%s\n", strings.Join(s.Header, " | "), s.align)
	for _, row := range s.Rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
	}
	return b.String()
}

// SpliceTimers writes the timers' figures into the report at path (relative to root), which a
// full run wrote: its Timers section, and its rows of the targets table, are replaced, or
// added (the section before Run on, the rows at the end of the table). The rest stays as the
// full run left it.
func SpliceTimers(rep Report, path, root string) error {
	t := &TargetRows{}
	rep.TimersTargets(t)
	return spliceSection(path, root, rep.TimersSection(), t.Rows, timersTargetPrefix)
}

// spliceSection writes one measurement's section, and its rows of the targets table (those whose
// targets begin with prefix), into the report at path, which a full run wrote (package splice).
func spliceSection(path, root string, section Section, rows [][]string, prefix string) error {
	return splice.Into(path, root, section.Title, section.markdown(), rows, prefix)
}

// Text is the section as aligned text, for the terminal.
func (s Section) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s\n", s.Title)
	for _, l := range s.lines {
		fmt.Fprintf(&b, "%s\n", strings.ReplaceAll(l, "**", ""))
	}
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, strings.Join(s.Header, "\t")+"\t") // a strings.Builder does not fail
	for _, row := range s.Rows {
		_, _ = fmt.Fprintln(w, strings.ReplaceAll(strings.Join(row, "\t"), "**", "")+"\t")
	}
	_ = w.Flush()
	return b.String()
}
