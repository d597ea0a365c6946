package importcell

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/internal/testkit/marcgen"
)

// The catalogue import measurement: `library import marc FILE` of a generated catalogue
// (package marcgen: records 1 to N, 1.5 copies a record), run as a process of its own, at its
// default settings, against a database of its own that nothing else writes to, which a service
// process migrated and built its views on, empty, before it stopped. Each record is a title
// stream (TitleAdded and a CopyAdded per copy), its ISBN's reservation stream, and for each
// copy a book stream (BookAdded) and its barcode's reservation stream: 2 + 3 × copies events.
// Then a service process (`serve`) starts on the database and its views and sagas read what the
// import wrote, until /status shows each caught up, or ImportCatchUpLimit has passed. Then,
// beside it, PostgreSQL's own pace: a COPY of as many rows into a bare table of the events
// table's columns (stream_id, version, type, data, metadata) with no index, no constraint and
// no default, BareCopies times, its median kept, the rows being the import's first ImportTemplateRows events over and over (each
// time under stream ids of their own), so that they are the size and shape of the import's;
// and the same COPY into an empty table shaped like the log (its defaults and indexes), which
// says how much of the bare pace the log's own rows allow any writer.
const (
	// ImportTemplateRows is how many of the import's first events the bare COPY's rows repeat:
	// about a batch's worth (1,000 records of 1.5 copies are 6,500 events).
	ImportTemplateRows = 6_500
	// ImportCatchUpLimit is the most the views and sagas are waited for, ten times the target:
	// what has not caught up by then is reported with the events it had still to read.
	ImportCatchUpLimit = 10 * time.Minute
	ImportPoll         = 250 * time.Millisecond
	// importPollShare is how many times as long as /status took to answer the next poll waits,
	// importPollMost at most.
	importPollShare = 4
	importPollMost  = 2 * time.Second
	// importStatusTimeout is the most one poll of /status waits for its answer.
	importStatusTimeout = 2 * time.Minute
	// bareTable is the bare COPY's table, shapedTable the table shaped like the log.
	bareTable   = "bench_bare_events"
	shapedTable = "bench_shaped_events"
)

// ImportViews are the view models whose catching up with the import is timed, beside every
// saga.
var ImportViews = []string{"catalog", "loans", "holds"}

// Import measures the import of records generated records on the empty database at
// databaseURL, the file written into dir, the catch-up's service run with serveEnv besides
// the bench's own settings (DeployedRuntime); see the constants above.
func Import(ctx context.Context, bin, databaseURL, dir string, records int, serveEnv []string, env environment.Machine) (ImportResult, error) {
	res := ImportResult{Records: records, ServeEnv: serveEnv, Env: env}
	if err := prepare(ctx, bin, databaseURL); err != nil {
		return res, err
	}
	file := filepath.Join(dir, "catalogue.mrc")
	if err := generateCatalogue(file, &res); err != nil {
		return res, err
	}
	defer func() { _ = os.Remove(file) }()
	environment.Logf("import: %s records with %s copies generated (%s) in %s, not timed", figures.Thousands(res.Records),
		figures.Thousands(res.Copies), figures.FormatMB(res.FileBytes), figures.FormatSeconds(res.Generated))
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return res, fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()

	from, err := runImport(ctx, bin, databaseURL, file, conn, &res)
	if err != nil {
		return res, err
	}
	_ = os.Remove(file)
	environment.Logf("import: %s events in %s: %.0f events/s, CPU %s, peak RSS %s", figures.Thousands(int(res.Events)),
		figures.FormatSeconds(res.Wall), res.EventsPerSecond(), figures.FormatSeconds(res.CPU), figures.FormatMB(res.PeakRSS))

	if err := catchUp(ctx, bin, databaseURL, &res); err != nil {
		return res, err
	}
	if res.AllCaughtUp {
		environment.Logf("import: views and sagas caught up in %s, the last %s", figures.FormatSeconds(res.CatchUp), res.Slowest().Name)
	} else {
		environment.Logf("import: views and sagas not caught up in %s: %s %s events behind", figures.FormatSeconds(res.CatchUp),
			res.Slowest().Name, figures.Thousands(int(res.Slowest().Lag)))
	}

	if err := bareCopy(ctx, conn, from, &res); err != nil {
		return res, err
	}
	environment.Logf("import: the bare COPY of %s rows in %s (the median of %d): %.0f rows/s; the import at %.2f × its pace",
		figures.Thousands(int(res.CopyRows)), figures.FormatSeconds(res.CopyWall), len(res.CopyWalls), res.CopyPerSecond(), res.Ratio())
	environment.Logf("import: the COPY into a table shaped like the log in %s: %.0f rows/s, %.2f × the bare COPY's pace",
		figures.FormatSeconds(res.ShapedWall), res.ShapedPerSecond(), res.ShapedRatio())
	res.Env.LoadAfter = environment.LoadAverage()
	return res, nil
}

// generateCatalogue writes records 1 to res.Records to file as ISO 2709, and counts their copies.
func generateCatalogue(file string, res *ImportResult) error {
	start := time.Now()
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("the catalogue: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = marcgen.Write(w, 1, res.Records)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the catalogue: %w", err)
	}
	info, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("the catalogue: %w", err)
	}
	for i := 1; i <= res.Records; i++ {
		res.Copies += marcgen.Copies(i)
	}
	res.FileBytes, res.Generated = info.Size(), time.Since(start)
	res.Expected = int64(2*res.Records + 3*res.Copies)
	return nil
}

// runImport runs `library import marc file` and times it, the events it wrote counted in the
// log before and after. It returns the log's last position before the import.
func runImport(ctx context.Context, bin, databaseURL, file string, conn *pgx.Conn, res *ImportResult) (int64, error) {
	var before, from int64
	if err := conn.QueryRow(ctx, `SELECT count(*), coalesce(max(position), 0) FROM events`).Scan(&before, &from); err != nil {
		return 0, fmt.Errorf("counting the events: %w", err)
	}
	res.Checkpointed = checkpoint(ctx, conn)
	cmd := environment.Command(ctx, bin, databaseURL, "import", "marc", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res.Wall = time.Since(start)
	output := func() string {
		out := strings.TrimSpace(stdout.String() + "\n" + stderr.String())
		if len(out) > 2000 {
			out = "..." + out[len(out)-2000:]
		}
		return out
	}
	if err != nil {
		return 0, fmt.Errorf("library import marc: %w: %s", err, output())
	}
	if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.PeakRSS = u.Maxrss * 1024 // kilobytes on Linux
	}
	res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	res.Summary = strings.TrimSpace(stdout.String())
	var after int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&after); err != nil {
		return 0, fmt.Errorf("counting the events: %w", err)
	}
	if res.Events = after - before; res.Events != res.Expected {
		return 0, fmt.Errorf("the import wrote %d events, not the %d of %d records with %d copies: %s", res.Events, res.Expected,
			res.Records, res.Copies, output())
	}
	return from, nil
}

// checkpoint has PostgreSQL write out what is dirty, so that a measurement meets a server at
// rest rather than the one before's writes; false when the role may not.
func checkpoint(ctx context.Context, conn *pgx.Conn) bool {
	if _, err := conn.Exec(ctx, `CHECKPOINT`); err != nil {
		environment.Logf("import: no CHECKPOINT (%v): measuring without", err)
		return false
	}
	return true
}

// prepare has a service process migrate the empty database and build its views on the empty
// log, as a library's are before its first import, then stops it.
func prepare(ctx context.Context, bin, databaseURL string) error {
	start := time.Now()
	svc, err := environment.StartService(ctx, bin, databaseURL, "REPLICA_ID=bench-import")
	if err != nil {
		return err
	}
	defer svc.StopLogged(ctx, "the import's service")
	if w, err := watchCatchUp(ctx, svc, start, time.Minute); err != nil {
		return err
	} else if !w.all {
		return fmt.Errorf("the service did not build its views on the empty log within a minute: %s", svc.Output())
	}
	return nil
}

// catchUp starts a service process on the database and polls /status until each view (the
// build the service reads) holds its lease with no lag, and each saga has no lag, or until
// ImportCatchUpLimit has passed; then stops it.
func catchUp(ctx context.Context, bin, databaseURL string, res *ImportResult) error {
	start := time.Now()
	svc, err := environment.StartService(ctx, bin, databaseURL, append([]string{"REPLICA_ID=bench-import"}, res.ServeEnv...)...)
	if err != nil {
		return err
	}
	defer svc.StopLogged(ctx, "the import's service")
	w, err := watchCatchUp(ctx, svc, start, ImportCatchUpLimit)
	if err != nil {
		return err
	}
	res.CaughtUp, res.AllCaughtUp, res.SlowestStatus = w.caught, w.all, w.slowestAsk
	res.CatchUp = time.Since(start) // the limit, and the last poll, when some did not catch up
	if res.AllCaughtUp {
		res.CatchUp = res.Slowest().After
	}
	mem, err := measure.ProcStatus(svc.Pid(), "VmHWM")
	if err != nil {
		return err
	}
	res.ServeRSS = mem["VmHWM"]
	return nil
}

// watched is what watchCatchUp saw: each awaited processor's figures, caught up or not,
// whether all were, and the longest /status took to answer.
type watched struct {
	caught     []ImportCaughtUp
	all        bool
	slowestAsk time.Duration
}

// watchCatchUp polls /status from start until every awaited processor is caught up (a view's
// build the service reads holding its lease at lag 0, not in bulk, a saga at lag 0), or until limit has
// passed. Each poll waits up to importStatusTimeout for its answer, and the next waits
// importPollShare times as long as that answer took (ImportPoll at least, importPollMost at
// most), so that polling takes a small share of the database while the processors read; after
// a poll that failed (the service starting, or a request that timed out), ImportPoll.
func watchCatchUp(ctx context.Context, svc *environment.Service, start time.Time, limit time.Duration) (watched, error) {
	var w watched
	var order []string
	seen := map[string]*ImportCaughtUp{}
	collect := func() []ImportCaughtUp {
		out := make([]ImportCaughtUp, 0, len(order))
		for _, name := range order {
			out = append(out, *seen[name])
		}
		return out
	}
	for {
		asked := time.Now()
		status, err := environment.FetchStatusWithin(ctx, svc.BaseURL, importStatusTimeout)
		took := time.Since(asked)
		w.slowestAsk = max(w.slowestAsk, took)
		if err == nil {
			pending := 0
			for _, p := range awaited(status) {
				c, ok := seen[p.Name]
				if !ok {
					c = &ImportCaughtUp{Name: p.Name, Kind: p.Kind}
					seen[p.Name], order = c, append(order, p.Name)
				}
				if c.Caught {
					continue
				}
				if c.Lag = p.Lag; p.HoldsLease && p.Lag == 0 && !p.Bulk {
					c.Caught, c.After = true, time.Since(start)
				} else {
					pending++
				}
			}
			if pending == 0 {
				w.caught, w.all = collect(), true
				return w, nil
			}
		}
		if time.Since(start) > limit {
			if len(order) == 0 {
				return w, fmt.Errorf("/status did not answer within %s (%w): %s", limit, err, svc.Output())
			}
			w.caught = collect()
			return w, nil
		}
		select { // polling /status, bounded by the limit
		case <-ctx.Done():
			return w, ctx.Err()
		case <-time.After(pollWait(took, err)):
		}
	}
}

// awaited are the processors whose catching up is timed, each under its own name: the views'
// builds the service reads, named after their view, and every saga.
func awaited(status map[string]environment.ProcessorStatus) []environment.ProcessorStatus {
	var out []environment.ProcessorStatus
	for _, v := range ImportViews {
		p := status[v]
		p.Name, p.Kind = v, "view"
		out = append(out, p)
	}
	var sagas []environment.ProcessorStatus
	for _, p := range status {
		if p.Kind == "saga" {
			sagas = append(sagas, p)
		}
	}
	slices.SortFunc(sagas, func(a, b environment.ProcessorStatus) int { return strings.Compare(a.Name, b.Name) })
	return append(out, sagas...)
}

// pollWait is how long watchCatchUp waits after a poll of /status that took took and failed
// with err (nil: answered).
func pollWait(took time.Duration, err error) time.Duration {
	if err != nil {
		return ImportPoll
	}
	return min(max(ImportPoll, importPollShare*took), importPollMost)
}
