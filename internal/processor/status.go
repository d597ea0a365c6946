package processor

import (
	"context"
	"errors"
	"time"

	"library/internal/errs"
	"library/internal/eventstore"
)

// Status is what GET /status shows of one processor, or of one build of a view model.
// Checkpoint, head, lag, parked, deferred, timers and a build's state come from the shared
// store, so every replica shows the same figures; holdsLease, reads and lastError are this
// replica's own.
type Status struct {
	Name       string `json:"name"`
	Kind       Kind   `json:"kind"`
	HoldsLease bool   `json:"holdsLease"`
	// View, Version, Build and State describe a build of a view model: the view, the version of
	// the code that builds it, its number, and whether it is building, answering or retired.
	// Reads is set on the build that this replica's reads of the view go to. All are absent for
	// an outbox or a saga.
	View    string     `json:"view,omitempty"`
	Version int        `json:"version,omitempty"`
	Build   int        `json:"build,omitempty"`
	State   BuildState `json:"state,omitempty"`
	Reads   bool       `json:"reads,omitempty"`
	// Checkpoint is the position of the last event the processor handled (0: none yet).
	Checkpoint int64 `json:"checkpoint"`
	// Generation counts the replays of an outbox or a saga (a view's replay is a new build).
	Generation int64 `json:"generation"`
	// Head is the position of the last event in the log.
	Head int64 `json:"head"`
	// Lag is how many events the processor has still to handle, counted up to LagCounted.
	Lag int64 `json:"lag"`
	// LagAtLeast says that Lag stopped at LagCounted: there may be more.
	LagAtLeast bool `json:"lagAtLeast,omitempty"`
	// Bulk says that this replica writes the build's catch-up in bulk (processor.BulkWriter):
	// what keeps its reads quick is made whole once it has caught up, and until then Bulk
	// stays set, at lag 0 too.
	Bulk   bool `json:"bulk,omitempty"`
	Parked int  `json:"parked"`
	// Deferred counts the events that failed for now and wait for their next attempt.
	Deferred int `json:"deferred"`
	// InFlight is how many events this replica is handling right now.
	InFlight int64 `json:"inFlight"`
	// Timers are the processor's timers, from the shared store; absent for a processor whose
	// handler fires none.
	Timers *TimerStatus `json:"timers,omitempty"`
	// Relay is what an outbox's handler, in the replica that holds the lease, says of the
	// system it delivers to; absent elsewhere.
	Relay *Relay `json:"relay,omitempty"`
	// LastError is this replica's last failure running the processor, cleared when the
	// processor next succeeds; null when there is none.
	LastError *string `json:"lastError"`
}

// Relay is the state of what an outbox delivers to (for loan emails, the mail relay), as the
// holder last saw it.
type Relay struct {
	// State is "up" (it answered), "down" (it can't be reached, or refuses all mail for now:
	// sending is paused) or "unknown" (nothing sent yet).
	State string `json:"state"`
	// Since is when it went down.
	Since *time.Time `json:"since,omitempty"`
}

// RelayReporter is implemented by handlers that can tell whether what they deliver to is up.
type RelayReporter interface {
	Relay() Relay
}

// StallReporter is implemented by stores whose read horizon can be held back by a transaction
// elsewhere: pgstore.Postgres.
type StallReporter interface {
	Stalled(ctx context.Context) (eventstore.Stall, bool, error)
}

// HorizonStatus is what GET /status shows of the log's read horizon: every processor, on
// every replica, reads only below it, so while a transaction holds it back, processors see no
// new event, and reads with minPosition wait.
type HorizonStatus struct {
	Stalled bool `json:"stalled"`
	// Seconds is how long the horizon has been held back.
	Seconds     float64    `json:"seconds,omitempty"`
	Since       *time.Time `json:"since,omitempty"`
	PID         int        `json:"pid,omitempty"`
	Database    string     `json:"database,omitempty"`
	Application string     `json:"application,omitempty"`
}

// PublicTexter is implemented by errors that can say what went wrong in words fit for /status,
// which anyone may read: codes and steps, never a member, an address or a host.
type PublicTexter interface {
	PublicText() string
}

// PublicText is what /status shows of an error. An error that implements PublicTexter says it
// itself. Of the service's own errors, an unavailable or failed store shows its code and
// detail (written by the store: what failed, never who), any other only its code; for anything
// else, /status says only that something failed, and the logs have the rest.
func PublicText(err error) string {
	var pt PublicTexter
	if errors.As(err, &pt) {
		return pt.PublicText()
	}
	var e *errs.Error
	if errors.As(err, &e) {
		if e.Code == errs.Unavailable || e.Code == errs.Internal {
			return string(e.Code) + ": " + e.Detail
		}
		return string(e.Code)
	}
	return "failed (the logs say why)"
}

// LagCounted is the most events a processor's lag is counted to, in /status and the metrics: a
// count is a scan of what is left, and a processor millions of events behind (a view after a
// catalogue import, a rebuild) made each answer of /status take seconds. Until the log is
// vacuumed after an import, a count visits each event's row too (the index alone can't say it
// is visible), for each of a dozen processors. Past it, the lag says "at least"
// (Status.LagAtLeast), and the checkpoint and head still say how far.
const LagCounted = 10_000
