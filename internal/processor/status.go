package processor

import (
	"context"
	"time"

	"library/internal/eventstore"
)

// Status is what GET /status shows of one processor. Checkpoint, head, lag and parked come from
// the shared store, so every replica shows the same figures; holdsLease and lastError are this
// replica's own.
type Status struct {
	Name       string `json:"name"`
	Kind       Kind   `json:"kind"`
	HoldsLease bool   `json:"holdsLease"`
	// Checkpoint is the position of the last event the processor handled (0: none yet).
	Checkpoint int64 `json:"checkpoint"`
	// Generation counts replays.
	Generation int64 `json:"generation"`
	// Head is the position of the last event in the log.
	Head int64 `json:"head"`
	// Lag is how many events the processor has still to handle.
	Lag    int64 `json:"lag"`
	Parked int   `json:"parked"`
	// Deferred counts the events that failed for now and wait for their next attempt.
	Deferred int `json:"deferred"`
	// InFlight is how many events this replica is handling right now.
	InFlight int64 `json:"inFlight"`
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

// Status reports on every processor, in the order they were given.
func (g *Group) Status(ctx context.Context) ([]Status, error) {
	head, err := g.cfg.Store.Head(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(g.runners))
	for _, r := range g.runners {
		pos, err := g.cfg.Checkpoints.Load(ctx, r.proc.Name)
		if err != nil {
			return nil, err
		}
		lag, err := g.cfg.Store.CountAfter(ctx, pos.Checkpoint)
		if err != nil {
			return nil, err
		}
		parked, err := g.cfg.Checkpoints.CountParked(ctx, r.proc.Name)
		if err != nil {
			return nil, err
		}
		deferred, err := g.cfg.Checkpoints.CountDeferred(ctx, r.proc.Name)
		if err != nil {
			return nil, err
		}
		s := Status{
			Name: r.proc.Name, Kind: r.proc.Kind, HoldsLease: r.holdsLease(),
			Checkpoint: pos.Checkpoint.Position, Generation: pos.Generation,
			Head: head.Position, Lag: lag, Parked: parked, Deferred: deferred, InFlight: r.inFlight.Load(),
		}
		if reporter, ok := r.proc.Handler.(RelayReporter); ok && s.HoldsLease {
			relay := reporter.Relay()
			s.Relay = &relay
		}
		if msg := r.lastErr(); msg != "" {
			s.LastError = &msg
		}
		out = append(out, s)
	}
	return out, nil
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

// ReadHorizon reports whether the log's read horizon is held back, by what and for how long.
func (g *Group) ReadHorizon(ctx context.Context) (HorizonStatus, error) {
	reporter, ok := g.cfg.Store.(StallReporter)
	if !ok {
		return HorizonStatus{}, nil
	}
	stall, stalled, err := reporter.Stalled(ctx)
	if err != nil || !stalled {
		return HorizonStatus{}, err
	}
	since := stall.Since.UTC()
	return HorizonStatus{Stalled: true, Seconds: time.Since(since).Seconds(), Since: &since,
		PID: stall.PID, Database: stall.Database, Application: stall.Application}, nil
}
