package report

import (
	"fmt"
	"time"

	"library/bench/internal/apart"
	"library/bench/internal/figures"
)

// The titles search's figures: their target, their section, and, for a run of
// BENCH_ONLY=titles-search, the splice that puts them into the last full run's report.

// titlesCeiling is the most a search of titles may take at p99.
const titlesCeiling = 50 * time.Millisecond

// titlesTargetPrefix begins the name of the titles search's target, so that a run of the
// titles alone finds its row in the report.
const titlesTargetPrefix = "titles search: "

// TitlesTargets adds the titles search's target: every kind of search under titlesCeiling at
// p99.
func (r Report) TitlesTargets(t *TargetRows) {
	x := r.Titles
	target := fmt.Sprintf("%severy kind at %s titles, p99 < %s", titlesTargetPrefix, figures.Thousands(apart.TitlesCount),
		figures.FormatLatency(titlesCeiling))
	as := fmt.Sprintf("p99 of %d requests of each kind, one at a time", apart.TitlesRequests)
	if !x.Measured() {
		t.missing(target, as)
		return
	}
	worst := x.Searches[0]
	for _, s := range x.Searches {
		if s.P99 > worst.P99 {
			worst = s
		}
	}
	t.add(target, as, fmt.Sprintf("%s at worst (%s)", figures.FormatLatency(worst.P99), worst.What), worst.P99 < titlesCeiling)
}

// TitlesSection is the titles search's figures: each kind of search's page and latencies.
func (r Report) TitlesSection() Section {
	x := r.Titles
	s := Section{
		Title: "Titles search",
		notes: []string{
			fmt.Sprintf("`GET /titles` at %s titles of %d copies each. A service process of its own, at its default settings, on a database of its own; the titles are written straight into the events table, a transaction for each %s titles and in it a statement for each kind of event, as the service writes them: each title's `TitleAdded` (a title of three words, an author, a subject, an ISBN), its copies' `CopyAdded`, and each copy's own `BookAdded`; a third of the titles have every copy lent (`CopyLent` on the title; the copies' `BookLent` are left out, so that no loan email is sent), and one in thirty of those a member waiting (`TitleHoldPlaced`); then `ANALYZE events`. The service's catalog (its build of this version, which took over from the migrations' first build, of version 1, on the empty database) then reads them, books and titles; *caught up* is from the last commit to `/status` showing that build caught up and `GET /titles` answering. Each request is made %d times, one at a time on one keep-alive connection, after %d untimed. The common word is the first word of the titles it is in, so its matches lie together in the order of titles: its first page walks the order for ten titles a place on the page without filling it, then gathers every match through the trigram index and sorts them, while its second page starts among them and the walk fills it; the rare word walks too, then the indexes give it its few matches, and the ISBN goes to the indexes at once.",
				figures.Thousands(apart.TitlesCount), apart.TitlesCopies, figures.Thousands(apart.TitlesPerTransaction),
				apart.TitlesRequests, apart.TitlesWarmups),
		},
		align:  "|---|---|--:|--:|--:|--:|",
		Header: []string{"search", "as sent", "titles", "bytes", "p50", "p99"},
	}
	if !x.Measured() {
		s.lines = append(s.lines, "Not measured in this run.")
		return s
	}
	e := x.Env
	s.lines = append(s.lines, fmt.Sprintf("%s events written in %s, caught up in %s. Measured %s, commit `%s`, load average %s before, %s after: one run, on a machine shared with other work, so the figures are of that run and swing from one to the next; compare the p50s and the kinds with each other rather than single figures across runs.",
		figures.Thousands(int(x.Events)), figures.FormatSeconds(x.Seed), figures.FormatSeconds(x.CatchUp),
		e.Date.Format(time.RFC3339), e.Commit, e.LoadBefore, e.LoadAfter))
	for _, t := range x.Searches {
		s.Rows = append(s.Rows, []string{t.What, fmt.Sprintf("`GET %s`", t.Path), fmt.Sprint(t.Titles), fmt.Sprint(t.Bytes),
			figures.FormatLatency(t.P50), figures.FormatLatency(t.P99)})
	}
	return s
}

// SpliceTitles writes the titles search's figures into the report at path (relative to root),
// which a full run wrote: its Titles search section, and its row of the targets table, are
// replaced, or added. The rest stays as the full run left it.
func SpliceTitles(rep Report, path, root string) error {
	t := &TargetRows{}
	rep.TitlesTargets(t)
	return spliceSection(path, root, rep.TitlesSection(), t.Rows, titlesTargetPrefix)
}
