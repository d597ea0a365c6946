package engine

import (
	"context"
	"time"

	"library/internal/eventstore"
	"library/internal/processor"
)

// Status reports on every processor, in the order they were given; a view model on each of its
// builds, in order.
func (g *Group) Status(ctx context.Context) ([]processor.Status, error) {
	head, err := g.cfg.Store.Head(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]processor.Status, 0, len(g.order))
	for _, name := range g.order {
		if k := g.keepers[name]; k != nil {
			builds, err := k.status(ctx, head)
			if err != nil {
				return nil, err
			}
			out = append(out, builds...)
			continue
		}
		r := g.byName[name]
		s, err := g.statusOf(ctx, r.proc, head, r)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// status reports on each of the view's builds, from the shared store: those of other versions
// too, which this replica does not run.
func (k *keeper) status(ctx context.Context, head eventstore.Checkpoint) ([]processor.Status, error) {
	builds, err := k.builds().ListBuilds(ctx, k.proc.Name)
	if err != nil {
		return nil, err
	}
	read, reads := processor.ReadBuild(builds, k.versions)
	out := make([]processor.Status, 0, len(builds))
	for _, b := range builds {
		p := k.proc
		p.Name = b.Name()
		s, err := k.g.statusOf(ctx, p, head, k.runnerOf(b.Number))
		if err != nil {
			return nil, err
		}
		s.View, s.Version, s.Build, s.State = b.View, b.Version, b.Number, b.State
		s.Reads = reads && b.Number == read.Number
		out = append(out, s)
	}
	return out, nil
}

// statusOf reports on one processor, or one build of a view; r is its runner in this replica,
// nil for none.
func (g *Group) statusOf(ctx context.Context, p processor.Processor, head eventstore.Checkpoint, r *runner) (processor.Status, error) {
	pos, err := g.cfg.Checkpoints.Load(ctx, p.Name)
	if err != nil {
		return processor.Status{}, err
	}
	lag, err := g.cfg.Store.CountAfterUpTo(ctx, pos.Checkpoint, processor.LagCounted, p.Types...)
	if err != nil {
		return processor.Status{}, err
	}
	parked, err := g.cfg.Checkpoints.CountParked(ctx, p.Name)
	if err != nil {
		return processor.Status{}, err
	}
	deferred, err := g.cfg.Checkpoints.CountDeferred(ctx, p.Name)
	if err != nil {
		return processor.Status{}, err
	}
	s := processor.Status{
		Name: p.Name, Kind: p.Kind, Checkpoint: pos.Checkpoint.Position, Generation: pos.Generation,
		Head: head.Position, Lag: lag, LagAtLeast: lag == processor.LagCounted, Parked: parked, Deferred: deferred,
	}
	if r != nil {
		s.HoldsLease, s.InFlight, s.Bulk = r.holdsLease(), r.inFlight.Load(), r.bulk.Load()
		if msg := r.lastErr(); msg != "" {
			s.LastError = &msg
		}
	}
	if p.FiresTimers() {
		if s.Timers, err = processor.ReadTimerStatus(ctx, g.cfg.Checkpoints, p.Name); err != nil {
			return processor.Status{}, err
		}
	}
	if reporter, ok := p.Handler.(processor.RelayReporter); ok && s.HoldsLease {
		relay := reporter.Relay()
		s.Relay = &relay
	}
	return s, nil
}

// ReadHorizon reports whether the log's read horizon is held back, by what and for how long.
func (g *Group) ReadHorizon(ctx context.Context) (processor.HorizonStatus, error) {
	reporter, ok := g.cfg.Store.(processor.StallReporter)
	if !ok {
		return processor.HorizonStatus{}, nil
	}
	stall, stalled, err := reporter.Stalled(ctx)
	if err != nil || !stalled {
		return processor.HorizonStatus{}, err
	}
	since := stall.Since.UTC()
	return processor.HorizonStatus{Stalled: true, Seconds: time.Since(since).Seconds(), Since: &since,
		PID: stall.PID, Database: stall.Database, Application: stall.Application}, nil
}
