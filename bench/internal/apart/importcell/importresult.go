package importcell

import (
	"time"

	"library/bench/internal/environment"
)

// ImportCaughtUp is when one view or saga first showed no lag in /status, or how far behind it
// was when the wait ended.
type ImportCaughtUp struct {
	Name, Kind string
	Caught     bool
	After      time.Duration // from serve starting, when Caught
	Lag        int64         // the events it had still to read, when not Caught
}

// ImportResult is what the catalogue import measurement found.
type ImportResult struct {
	Records, Copies int
	FileBytes       int64
	Generated       time.Duration // writing the file, not timed
	// Events is how many events the import wrote, counted in the events table before and after;
	// Expected is 2 + 3 × copies a record.
	Events, Expected int64
	Wall             time.Duration // of the import process, from its start to its exit
	CPU              time.Duration // user and system time of the import process
	PeakRSS          int64         // the import process's maxrss, bytes
	Summary          string        // the import's own last line
	// Checkpointed is whether PostgreSQL took a CHECKPOINT before the import and before the bare
	// COPY (a role that may not is refused, and the run goes on without).
	Checkpointed bool

	// CatchUp is from serve starting to every view and saga caught up (AllCaughtUp), or to the
	// end of the wait (ImportCatchUpLimit) when some did not.
	CatchUp     time.Duration
	AllCaughtUp bool
	CaughtUp    []ImportCaughtUp
	ServeRSS    int64    // the service's VmHWM once caught up, bytes
	ServeEnv    []string // the Go runtime's settings the service ran with (DeployedRuntime)
	// SlowestStatus is the longest /status took to answer while the views and sagas read.
	SlowestStatus time.Duration

	CopyRows int64
	// CopyWall is the median of CopyWalls, the bare COPYs' times (BareCopies of them, one
	// statement each, its commit included).
	CopyWall  time.Duration
	CopyWalls []time.Duration
	// ShapedRows and ShapedWall are the same COPY into an empty table shaped like the log
	// (LIKE events INCLUDING ALL): PostgreSQL's own pace for the log's rows.
	ShapedRows int64
	ShapedWall time.Duration
	// EventsTable and EventsIndexes are the events table's size (with its TOAST) and its
	// indexes', and BareTable the bare table's, in bytes, after each was written.
	EventsTable, EventsIndexes, BareTable int64

	// Env is the machine as the measurement began, with the load average after it.
	Env environment.Machine
}

// Measured reports whether the result holds figures.
func (r ImportResult) Measured() bool { return r.Events > 0 && r.CopyRows > 0 }

// EventsPerSecond is the import's pace into the log.
func (r ImportResult) EventsPerSecond() float64 { return float64(r.Events) / r.Wall.Seconds() }

// CopyPerSecond is the bare COPY's pace.
func (r ImportResult) CopyPerSecond() float64 { return float64(r.CopyRows) / r.CopyWall.Seconds() }

// Ratio is the import's pace over the bare COPY's.
func (r ImportResult) Ratio() float64 { return r.EventsPerSecond() / r.CopyPerSecond() }

// ShapedPerSecond is the pace of the COPY into a table shaped like the log.
func (r ImportResult) ShapedPerSecond() float64 {
	return float64(r.ShapedRows) / r.ShapedWall.Seconds()
}

// ShapedRatio is the pace of the COPY into a table shaped like the log over the bare COPY's:
// the most any writer of the log could reach of the bare COPY's pace.
func (r ImportResult) ShapedRatio() float64 { return r.ShapedPerSecond() / r.CopyPerSecond() }

// Slowest is the view or saga that caught up last, or, when some did not, the one furthest
// behind.
func (r ImportResult) Slowest() ImportCaughtUp {
	var last ImportCaughtUp
	for _, c := range r.CaughtUp {
		switch {
		case r.AllCaughtUp && c.After >= last.After, !r.AllCaughtUp && !c.Caught && c.Lag >= last.Lag:
			last = c
		}
	}
	return last
}
