package engine

import (
	"context"
	"time"

	"library/internal/processor"
)

// Status reports on every processor, in the order they were given.
func (g *Group) Status(ctx context.Context) ([]processor.Status, error) {
	head, err := g.cfg.Store.Head(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]processor.Status, 0, len(g.runners))
	for _, r := range g.runners {
		pos, err := g.cfg.Checkpoints.Load(ctx, r.proc.Name)
		if err != nil {
			return nil, err
		}
		lag, err := g.cfg.Store.CountAfter(ctx, pos.Checkpoint, r.proc.Types...)
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
		s := processor.Status{
			Name: r.proc.Name, Kind: r.proc.Kind, HoldsLease: r.holdsLease(),
			Checkpoint: pos.Checkpoint.Position, Generation: pos.Generation,
			Head: head.Position, Lag: lag, Parked: parked, Deferred: deferred, InFlight: r.inFlight.Load(),
		}
		if r.proc.FiresTimers() {
			if s.Timers, err = processor.ReadTimerStatus(ctx, g.cfg.Checkpoints, r.proc.Name); err != nil {
				return nil, err
			}
		}
		if reporter, ok := r.proc.Handler.(processor.RelayReporter); ok && s.HoldsLease {
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
