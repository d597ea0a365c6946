package report

import (
	"fmt"
	"strings"
	"time"

	"library/bench/internal/apart/holdcell"
	"library/bench/internal/figures"
)

// The title holds' figures (issue 39): their targets, their section, and, for a run of
// BENCH_ONLY=holds, the splice that puts them into the last full run's report.

// holdsCeiling is the most a hold at the last place of the long queue may cost, over a hold at
// the first: snapshots, and the aggregate kept in memory, keep a long queue cheap.
const holdsCeiling = 1.5

// holdsTargetPrefix begins the name of each of the title holds' targets, so that a run of the
// holds alone finds its rows in the report.
const holdsTargetPrefix = "title holds: "

// HoldsTargets adds the title holds' targets: a hold at the last place against one at the
// first, and the traps' rate, which has none.
func (r Report) HoldsTargets(t *TargetRows) {
	x := r.Holds
	target := fmt.Sprintf("%sa hold at place %s ≤ %.1f × at place 1", holdsTargetPrefix, figures.Thousands(holdcell.HoldsQueue), holdsCeiling)
	as := fmt.Sprintf("p50 of %d placements at each place, one at a time, in turns", holdcell.HoldSamples)
	traps := fmt.Sprintf("%straps per second, %d copies back at once, concurrency %d", holdsTargetPrefix, holdcell.HoldsCopies, holdcell.HoldsConcurrency)
	trapsAs := fmt.Sprintf("median of %d rounds of %d returns, from %s waiting down to %s", holdcell.TrapRounds, holdcell.HoldsCopies,
		figures.Thousands(firstWaiting(x)), figures.Thousands(x.WaitingAfter))
	if !x.Measured() {
		t.missing(target, as)
		t.missing(traps, fmt.Sprintf("median of %d rounds of %d returns", holdcell.TrapRounds, holdcell.HoldsCopies))
		return
	}
	t.add(target, as, fmt.Sprintf("%.2f × (%s, %s)", x.Ratio, figures.FormatLatency(x.Last.P50), figures.FormatLatency(x.First.P50)), x.Ratio <= holdsCeiling)
	t.info(traps, trapsAs, fmt.Sprintf("%.0f /s", x.TrapsPerSecond))
}

// firstWaiting is how many waited as the first timed round began.
func firstWaiting(x holdcell.HoldsResult) int {
	if len(x.Rounds) == 0 {
		return 0
	}
	return x.Rounds[0].Waiting
}

// HoldsSection is the title holds' figures: the two places' placements, the returns and the
// rounds' rates.
func (r Report) HoldsSection() Section {
	x := r.Holds
	s := Section{
		Title: "Title holds",
		notes: []string{
			fmt.Sprintf("Issue 39: a title with %s holds waiting and %d copies. A service process of its own, at its default settings but `HOLDS_MAX=%d` (the default, 20, would refuse a queue this long), on a database of its own, sending its pickup emails to an SMTP server of its own; everything is set up through the HTTP API: %s members (`PUT /accounts/{id}`) and a lender for each copy, two titles (`POST /titles`) of %d copies each (`POST /titles/{titleId}/copies`), every copy lent to its lender, then %s holds on the long title (`POST /titles/{titleId}/holds` with an `Idempotency-Key`), one at a time (set up in %s). *A hold at place 1* is a member's hold on the other title, which nobody waits for; *at place %s*, the same member's hold on the long title, behind the %s others; each is cancelled at once (`DELETE /titles/{titleId}/holds/{memberId}`, untimed), the two in turns, which first turning each time, %d of each untimed, then %d timed, one at a time on keep-alive connections; the member then takes place %s for good. *Returns* are `POST /books/{bookId}/returns` of the long title's %d copies at once, %d at a time: each holds its copy for the next member waiting (`HoldTrapped` on the title and `BookHeld` on the copy, in one append; the members held for are checked to be the first %d waiting), so each return is a trap; a round's rate is its %d returns over the time from the first sent to the last answered. Between rounds, untimed, each copy is lent to the member it is held for, so that the next round traps the next %d holds. %d round untimed, then %d timed, the queue %d shorter each round; the target is judged on the medians.",
				figures.Thousands(holdcell.HoldsQueue), holdcell.HoldsCopies, holdcell.HoldsMax, figures.Thousands(holdcell.HoldsQueue),
				holdcell.HoldsCopies, figures.Thousands(holdcell.HoldsQueue-1), figures.FormatSeconds(x.Setup),
				figures.Thousands(holdcell.HoldsQueue), figures.Thousands(holdcell.HoldsQueue-1), holdcell.HoldWarmups, holdcell.HoldSamples,
				figures.Thousands(holdcell.HoldsQueue), holdcell.HoldsCopies, holdcell.HoldsConcurrency, holdcell.HoldsCopies, holdcell.HoldsCopies,
				holdcell.HoldsCopies, holdcell.TrapWarmupRounds, holdcell.TrapRounds, holdcell.HoldsCopies),
		},
		align:  "|---|--:|--:|--:|",
		Header: []string{"measured", "p50", "p99", "of"},
	}
	if !x.Measured() {
		s.lines = append(s.lines, "Not measured in this run.")
		return s
	}
	e := x.Env
	summary := fmt.Sprintf("**%.0f traps/s (the median of %d rounds; %.0f /s over all their returns); a hold at place %s took %.2f × as long as at place 1 (%s against %s, p50).**",
		x.TrapsPerSecond, len(x.Rounds), x.TrapsOverall, figures.Thousands(holdcell.HoldsQueue), x.Ratio,
		figures.FormatLatency(x.Last.P50), figures.FormatLatency(x.First.P50))
	if x.Ratio > holdsCeiling {
		summary += fmt.Sprintf(" **That is above the %.1f × issue 39 allows: the long queue is not kept cheap.**", holdsCeiling)
	}
	s.lines = append(s.lines, summary+fmt.Sprintf(" Measured %s, commit `%s`, load average %s before, %s after.",
		e.Date.Format(time.RFC3339), e.Commit, e.LoadBefore, e.LoadAfter))
	placement := func(t holdcell.HoldTiming, what string) []string {
		return []string{fmt.Sprintf("a hold at place %s (%s)", figures.Thousands(t.Place), what), figures.FormatLatency(t.P50),
			figures.FormatLatency(t.P99), fmt.Sprintf("%d holds", len(t.Samples))}
	}
	s.Rows = [][]string{
		placement(x.First, "nobody waiting"),
		placement(x.Last, figures.Thousands(holdcell.HoldsQueue-1)+" waiting"),
		{fmt.Sprintf("a return that traps a hold, %d at a time", holdcell.HoldsConcurrency), figures.FormatLatency(x.ReturnP50),
			figures.FormatLatency(x.ReturnP99), fmt.Sprintf("%d returns", len(x.Rounds)*holdcell.HoldsCopies)},
	}
	var rates []string
	for _, round := range x.Rounds {
		rates = append(rates, fmt.Sprintf("%.0f", round.PerSecond))
	}
	s.lines = append(s.lines, fmt.Sprintf("Every timed round's traps/s, in order, from %s waiting to %s after the last: %s.",
		figures.Thousands(firstWaiting(x)), figures.Thousands(x.WaitingAfter), strings.Join(rates, ", ")))
	return s
}

// SpliceHolds writes the title holds' figures into the report at path (relative to root),
// which a full run wrote: its Title holds section, and its rows of the targets table, are
// replaced, or added (the section before Run on, the rows at the end of the table). The rest
// stays as the full run left it.
func SpliceHolds(rep Report, path, root string) error {
	t := &TargetRows{}
	rep.HoldsTargets(t)
	return spliceSection(path, root, rep.HoldsSection(), t.Rows, holdsTargetPrefix)
}
