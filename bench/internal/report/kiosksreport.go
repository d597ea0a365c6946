package report

import (
	"fmt"
	"strings"
	"time"

	"library/bench/internal/apart/kioskcell"
	"library/bench/internal/figures"
)

// The kiosks' checkouts, over SIP2 and over HTTP: their row beside the targets (they have no
// target of their own), their section, and, for a run of BENCH_ONLY=sip, the splice that puts
// them into the last full run's report.

// kiosksTargetPrefix begins the name of the kiosks' row of the targets table, so that a run of
// the kiosks alone finds it in the report.
const kiosksTargetPrefix = "kiosk checkouts: "

// KiosksTargets adds the kiosks' row: SIP2's checkouts per second over HTTP's, at each level.
func (r Report) KiosksTargets(t *TargetRows) {
	what := fmt.Sprintf("%sSIP2 over HTTP, at %s kiosks", kiosksTargetPrefix, joinInts(kioskcell.KioskLevels))
	as := "checkouts per second, one service process, the same checkouts of fresh copies"
	if !r.Kiosks.Measured() {
		t.missing(what, as)
		return
	}
	var ratios []string
	for _, level := range kioskcell.KioskLevels {
		ratios = append(ratios, fmt.Sprintf("%.2f ×", r.Kiosks.Ratio(level)))
	}
	t.info(what, as, strings.Join(ratios, ", "))
}

// KiosksSection is the kiosks' figures: each door at each level, and the members' shows.
func (r Report) KiosksSection() Section {
	x := r.Kiosks
	s := Section{
		Title: "Kiosk checkouts: SIP2 and HTTP",
		notes: []string{
			fmt.Sprintf("Checkouts at self-check kiosks over SIP2 against the same checkouts over HTTP (`POST /books/{bookId}/loans` with a loan id, `AUTH=off` as in the throughput cells), at %s at once, on one service process of its own (one replica, at its default settings with the run's, a SIP listener on a loopback port: `SIP_ADDR`) and a database of its own. At each level both doors' workers are readied and each door warms up for %s; then the %s measured are cut into %d rounds, in each of which both doors run for an equal share, one after the other, the first of the two taking turns from round to round, so that both meet the machine in the same states; each door's figures add up its rounds. A **SIP2** worker is a kiosk: one connection, logged in (`93`) as a terminal that `library sip terminals add` made, with a member of its own who shows card and PIN once, before the warm-up, in a patron status (`23`): that is when the member's account checks the PIN (argon2id, as the login checks the terminal's password). The session then remembers the card, so each checkout (`11`, with the card, the PIN, the copy's barcode, and `AY`/`AZ` error detection) is answered without checking it again. Those first shows are timed apart from the cells, below; the kiosks log in and show their members %d at a time, since each hash is a few tens of milliseconds of a core: 32 kiosks all at once, on this machine shared with other work, were all answered *something went wrong* (the store's failure) some 10 s on, the service's message timeout (`REQUEST_TIMEOUT`). A session remembers one member: kiosks whose members took turns would pay for a PIN check at each turn, which these figures leave out. An **HTTP** worker lends to a member of its own on a keep-alive connection of its own. A SIP2 checkout finds the copy by its barcode and then lends it, as a kiosk scans it; the HTTP one names the copy. Every checkout is of a copy nobody has had, added beforehand through `POST /books` (a title of its own each, with a barcode: %s in all, topped up between a level's warm-ups and its rounds for twice the fastest pace seen), taken in turn by the level's workers; each cell's members are their own, each with a card and a PIN set through the API, and `MAX_LOANS` is out of the way (10⁹, as for every service of the run). Latencies are from a request's first byte sent to its answer's last read, by the client.",
				levelsText(), r.Config.Warmup, r.Config.Duration, kioskcell.KioskRounds, kioskcell.KioskShowers, figures.Thousands(x.Copies)),
		},
		align:  "|---|--:|--:|--:|--:|--:|--:|",
		Header: []string{"door", "kiosks (concurrency)", "checkouts/s", "p50", "p99", "errors", "SIP2 / HTTP"},
	}
	if !x.Measured() {
		s.lines = append(s.lines, "Not measured in this run.")
		return s
	}
	e := x.Env
	var shows []string
	for _, sh := range x.Shows {
		shows = append(shows, fmt.Sprintf("%d members, %d at a time: p50 %s, slowest %s", sh.Kiosks, kioskcell.KioskShowers,
			figures.FormatLatency(sh.P50), figures.FormatLatency(sh.Max)))
	}
	s.lines = append(s.lines, fmt.Sprintf("The members' first shows (`23`, the PIN checked), not in the cells: %s. Measured %s, commit `%s`, load average %s before, %s after: one run, on a machine shared with other work, so the figures are of that run and swing from one to the next; compare the doors with each other at a level rather than single figures across runs.",
		strings.Join(shows, "; "), e.Date.Format(time.RFC3339), e.Commit, e.LoadBefore, e.LoadAfter))
	for _, c := range x.Cells {
		ratio := "—"
		if c.Measurement == kioskcell.DoorSIP {
			ratio = fmt.Sprintf("%.2f ×", x.Ratio(c.Concurrency))
		}
		s.Rows = append(s.Rows, []string{c.Measurement, fmt.Sprint(c.Concurrency), fmt.Sprintf("%.0f", c.Throughput()),
			figures.FormatLatency(c.P50), figures.FormatLatency(c.P99), fmt.Sprint(c.Errors), ratio})
		if c.FirstError != "" {
			s.notes = append(s.notes, fmt.Sprintf("First error of %s at %d: `%s`", c.Measurement, c.Concurrency, c.FirstError))
		}
	}
	return s
}

// SpliceKiosks writes the kiosks' figures into the report at path (relative to root), which a
// full run wrote: its section, and its row of the targets table, are replaced, or added. The
// rest stays as the full run left it.
func SpliceKiosks(rep Report, path, root string) error {
	t := &TargetRows{}
	rep.KiosksTargets(t)
	return spliceSection(path, root, rep.KiosksSection(), t.Rows, kiosksTargetPrefix)
}

// levelsText is the kiosks' levels in words: "8 and 32 kiosks".
func levelsText() string { return joinInts(kioskcell.KioskLevels) + " kiosks" }

// joinInts writes ns as "8 and 32", "1, 8 and 32".
func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, fmt.Sprint(n))
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
