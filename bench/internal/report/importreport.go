package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"library/bench/internal/apart/importcell"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
)

// The catalogue import's figures: its targets, its section, and, for a run of BENCH_ONLY=import,
// the splice that puts them into the last full run's report.

// The catalogue import's targets: events into the log per second, that pace against a bare
// COPY's, the views and sagas caught up after it, and the import process's memory.
const (
	importEventsFloor    = 40_000
	importRatioFloor     = 0.5
	importCatchUpCeiling = time.Minute
	importRSSCeiling     = 200e6
)

// importTargetPrefix begins the names of the catalogue import's targets, so that a run of the
// import alone finds their rows in the report.
const importTargetPrefix = "import: "

// ImportTargets adds the catalogue import's targets, each judged on the one run.
func (r Report) ImportTargets(t *TargetRows) {
	x := r.Import
	of := fmt.Sprintf("%s records with %s copies, one run", figures.Thousands(x.Records), figures.Thousands(x.Copies))
	if x.Records != environment.DefaultImportRecords {
		of = fmt.Sprintf("%s records with %s copies (BENCH_IMPORT_RECORDS; the issue's are %s), one run", figures.Thousands(x.Records),
			figures.Thousands(x.Copies), figures.Thousands(environment.DefaultImportRecords))
	}
	events := fmt.Sprintf("%s≥ %s events/s into the log", importTargetPrefix, figures.Thousands(importEventsFloor))
	eventsAs := "events written (counted in the log) over the import process's wall time, " + of
	ratio := fmt.Sprintf("%s≥ %.1f × PostgreSQL's COPY into a bare table", importTargetPrefix, importRatioFloor)
	ratioAs := "events/s over the rows/s of a COPY of as many rows of the same size into a table with no index or constraint, the median of three"
	catchUp := fmt.Sprintf("%sviews and sagas caught up ≤ %s after it", importTargetPrefix, figures.FormatSeconds(importCatchUpCeiling))
	catchUpAs := "from `serve` starting on the imported log to `/status` showing catalog, loans, holds (not in bulk) and every saga at lag 0"
	rss := fmt.Sprintf("%speak RSS < %s", importTargetPrefix, figures.FormatMB(importRSSCeiling))
	rssAs := "the import process's maxrss (getrusage, once it exited)"
	if !x.Measured() {
		for _, row := range [][2]string{{events, eventsAs}, {ratio, ratioAs}, {catchUp, catchUpAs}, {rss, rssAs}} {
			t.missing(row[0], row[1])
		}
		return
	}
	t.add(events, eventsAs, fmt.Sprintf("%s /s (%s events in %s)", figures.Thousands(int(x.EventsPerSecond())),
		figures.Thousands(int(x.Events)), figures.FormatSeconds(x.Wall)), x.EventsPerSecond() >= importEventsFloor)
	t.add(ratio, ratioAs, fmt.Sprintf("%.2f × (%s /s, COPY %s /s)", x.Ratio(), figures.Thousands(int(x.EventsPerSecond())),
		figures.Thousands(int(x.CopyPerSecond()))), x.Ratio() >= importRatioFloor)
	if x.AllCaughtUp {
		t.add(catchUp, catchUpAs, fmt.Sprintf("%s (the last: %s)", figures.FormatSeconds(x.CatchUp), x.Slowest().Name),
			x.CatchUp <= importCatchUpCeiling)
	} else {
		slow := x.Slowest()
		t.add(catchUp, catchUpAs, fmt.Sprintf("not in %s (%s %s events behind)", figures.FormatSeconds(x.CatchUp), slow.Name,
			figures.Thousands(int(slow.Lag))), false)
	}
	t.add(rss, rssAs, figures.FormatMB(x.PeakRSS), x.PeakRSS < importRSSCeiling)
}

// ImportSection is the catalogue import's figures: the import, the bare COPY beside it, each
// view and saga catching up, and the tables' sizes.
func (r Report) ImportSection() Section {
	x := r.Import
	s := Section{
		Title:  "Catalogue import",
		notes:  importNotes(),
		align:  "|---|--:|",
		Header: []string{"measured", "result"},
	}
	if !x.Measured() {
		s.lines = append(s.lines, "Not measured in this run.")
		return s
	}
	e := x.Env
	size := ""
	if x.Records != environment.DefaultImportRecords {
		size = fmt.Sprintf(" At %s records (`BENCH_IMPORT_RECORDS`), not the issue's %s.", figures.Thousands(x.Records),
			figures.Thousands(environment.DefaultImportRecords))
	}
	checkpoints := ""
	if !x.Checkpointed {
		checkpoints = " PostgreSQL refused the run's role a `CHECKPOINT`: none was taken."
	}
	caughtUp := "caught up " + figures.FormatSeconds(x.CatchUp) + " after"
	if !x.AllCaughtUp {
		caughtUp = fmt.Sprintf("not caught up %s after (%s %s events behind)", figures.FormatSeconds(x.CatchUp), x.Slowest().Name,
			figures.Thousands(int(x.Slowest().Lag)))
	}
	s.lines = append(s.lines, fmt.Sprintf("**%s events/s into the log, %.2f × the bare COPY's %s rows/s; %s; %s at most.**%s%s Measured %s, commit `%s`, load average %s before, %s after: one run of each, single figures, on a machine shared with other work, so they swing from one run to the next.",
		figures.Thousands(int(x.EventsPerSecond())), x.Ratio(), figures.Thousands(int(x.CopyPerSecond())), caughtUp,
		figures.FormatMB(x.PeakRSS), size, checkpoints, e.Date.Format(time.RFC3339), e.Commit,
		e.LoadBefore, e.LoadAfter))
	s.Rows = [][]string{
		{"records, copies", fmt.Sprintf("%s, %s", figures.Thousands(x.Records), figures.Thousands(x.Copies))},
		{"the file (ISO 2709), written untimed in", fmt.Sprintf("%s, %s", figures.FormatMB(x.FileBytes), figures.FormatSeconds(x.Generated))},
		{"events written (2 + 3 × copies a record)", figures.Thousands(int(x.Events))},
		{"import: wall time", figures.FormatSeconds(x.Wall)},
		{"import: events/s", figures.Thousands(int(x.EventsPerSecond()))},
		{"import: records/s", figures.Thousands(int(float64(x.Records) / x.Wall.Seconds()))},
		{"import: CPU (user + system), of its wall time", fmt.Sprintf("%s, %.0f%%", figures.FormatSeconds(x.CPU), 100*x.CPU.Seconds()/x.Wall.Seconds())},
		{"import: peak RSS", figures.FormatMB(x.PeakRSS)},
		{"import: its summary", "`" + strings.ReplaceAll(x.Summary, "|", "/") + "`"},
		{"bare COPY: rows, time (the median of its runs)", fmt.Sprintf("%s, %s (%s)", figures.Thousands(int(x.CopyRows)),
			figures.FormatSeconds(x.CopyWall), formatWalls(x.CopyWalls))},
		{"bare COPY: rows/s", figures.Thousands(int(x.CopyPerSecond()))},
		{"import over bare COPY", fmt.Sprintf("%.2f ×", x.Ratio())},
		{"COPY into a table shaped like the log (`LIKE events INCLUDING ALL`): time, rows/s", fmt.Sprintf("%s, %s",
			figures.FormatSeconds(x.ShapedWall), figures.Thousands(int(x.ShapedPerSecond())))},
		{"that COPY over the bare COPY: the most a writer of the log could reach", fmt.Sprintf("%.2f ×", x.ShapedRatio())},
		{"import over that COPY", fmt.Sprintf("%.2f ×", x.EventsPerSecond()/x.ShapedPerSecond())},
		{"events table: table (with TOAST), indexes", fmt.Sprintf("%s, %s", figures.FormatMB(x.EventsTable), figures.FormatMB(x.EventsIndexes))},
		{"bare table", figures.FormatMB(x.BareTable)},
	}
	s.Rows = append(s.Rows, catchUpRows(x)...)
	return s
}

// catchUpRows are the rows of the service catching up after the import: each view and saga, in
// the order they caught up (then those that did not, nearest first), all of them, and the
// service's figures.
func catchUpRows(x importcell.ImportResult) [][]string {
	var rows [][]string
	caught := slices.Clone(x.CaughtUp)
	slices.SortStableFunc(caught, func(a, b importcell.ImportCaughtUp) int { // those caught up first, in turn, then the nearest
		switch {
		case a.Caught && !b.Caught:
			return -1
		case !a.Caught && b.Caught:
			return 1
		case a.Caught:
			return cmp.Compare(a.After, b.After)
		}
		return cmp.Compare(a.Lag, b.Lag)
	})
	for _, c := range caught {
		result := figures.FormatSeconds(c.After)
		if !c.Caught {
			result = fmt.Sprintf("not in %s: %s events behind", figures.FormatSeconds(x.CatchUp), figures.Thousands(int(c.Lag)))
		}
		rows = append(rows, []string{fmt.Sprintf("caught up: %s (%s)", c.Name, c.Kind), result})
	}
	all, env := figures.FormatSeconds(x.CatchUp), "none"
	if !x.AllCaughtUp {
		all = "not in " + all
	}
	if len(x.ServeEnv) > 0 {
		env = "`" + strings.Join(x.ServeEnv, " ") + "`"
	}
	return append(rows,
		[]string{"caught up: all", all},
		[]string{"the service catching up: `/status`'s slowest answer", figures.FormatSeconds(x.SlowestStatus)},
		[]string{"the service catching up: peak RSS (VmHWM)", figures.FormatMB(x.ServeRSS)},
		[]string{"the service catching up: Go's runtime set as deployed", env})
}

// SpliceImport writes the catalogue import's figures into the report at path (relative to
// root), which a full run wrote: its Catalogue import section, and its rows of the targets
// table, are replaced, or added. The rest stays as the full run left it.
func SpliceImport(rep Report, path, root string) error {
	t := &TargetRows{}
	rep.ImportTargets(t)
	return spliceSection(path, root, rep.ImportSection(), t.Rows, importTargetPrefix)
}

// formatWalls are the times of the bare COPYs, in the order they ran.
func formatWalls(walls []time.Duration) string {
	out := make([]string, len(walls))
	for i, w := range walls {
		out[i] = figures.FormatSeconds(w)
	}
	return strings.Join(out, ", ")
}

// importNotes say how the catalogue import cell measures.
func importNotes() []string {
	return []string{
		fmt.Sprintf("`library import marc FILE` of a generated catalogue (`internal/testkit/marcgen`: records 1 to N as ISO 2709, each a title with an ISBN, an author, a publisher, a year, a subject, and one copy, or two for every other record, in Koha's 952 with a barcode, a call number and a price), the file written beforehand into the run's temporary directory, untimed. The import is the service's binary as a process of its own, at its default settings (batches of 1,000 records, each one transaction through the log's bulk path, four in flight, two of them written at once, and its garbage collected as it sets it, GOGC 400 with a 256 MiB limit), against a database of its own that nothing else writes to, on which a service process started first, migrated it and built its views on the empty log, as a library's are before its first import, and stopped. Each record is 2 + 3 × copies events: its title's `TitleAdded` and a `CopyAdded` for each copy, its ISBN's reservation, and for each copy the book's `BookAdded` and its barcode's reservation. *Events/s* is the events it wrote, counted in the events table before and after, over its process's wall time from start to exit; its memory is the process's maxrss, and its CPU its user and system time, from getrusage once it exited. Then one service process (`serve`) starts on the database, with the Go runtime's settings a replica of the base deployment has (`GOGC` and `GOMEMLIMIT` in `deploy/k8s/base/config.env`, in the table), and its views and sagas read the imported log; *caught up* is from the process starting to `/status` showing, for each of %s, the build the service reads holding its lease at lag 0 and no longer in bulk (a build far behind writes in bulk, and the catalog's search indexes and its titles' B-trees are made again, whole, before `bulk` goes), and every saga at lag 0, polled every %s, or, while `/status` is slow to answer, four times as long as its last answer took (2 s at most), so that the polling takes a small share of the database; the wait ends after %s, ten times the target, and what had not caught up by then is shown with the events it had still to read.",
			strings.Join(importcell.ImportViews, ", "), figures.FormatLatency(importcell.ImportPoll), figures.FormatSeconds(importcell.ImportCatchUpLimit)),
		fmt.Sprintf("*The bare COPY* is PostgreSQL's own pace beside it: after a `VACUUM ANALYZE` of the database (what autovacuum would do soon after the import, done beforehand so that it does not run beside the COPY), %d times a `COPY` (pgx's `CopyFrom`, binary, in one transaction) of as many rows as the import wrote into an empty table of the events table's written columns, `(stream_id text, version bigint, type text, data jsonb, metadata jsonb)`. That table has **no index, no constraint and no default**: none of the events table's primary key on its position (an identity column, from a sequence), its unique `(stream_id, version)`, its other indexes, its `NOT NULL`s and its `CHECK (version > 0)`, nor its writing transaction's id and its time (`transaction_id`, `recorded_at`, defaults every row of the log gets). Its rows are the import's first %s events, in order, again and again, each time with `.k` after each stream id, so that they are the import's in size and shape. A `CHECKPOINT` precedes the import, and each COPY, so that each meets a server at rest. The import's pace, a single run, is over the COPYs' median: on a shared machine one COPY of the same rows took twice as long as another.",
			importcell.BareCopies, figures.Thousands(importcell.ImportTemplateRows)),
		"*The COPY into a table shaped like the log* is the same COPY again, after another `CHECKPOINT`, into an empty `CREATE TABLE ... (LIKE events INCLUDING ALL)`: the events table's defaults (the position's identity, the writing transaction's id, the time), checks and four indexes, as every row of the log has them. It is PostgreSQL's own pace for the log's rows, which no single writer of the log can pass by much: its ratio to the bare COPY is about the most any import could reach of the target's.",
	}
}
