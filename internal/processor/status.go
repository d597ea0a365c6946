package processor

import (
	"context"
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
	// LastError is this replica's last failure running the processor, cleared by the next
	// batch that succeeds; null when there is none.
	LastError *string `json:"lastError"`
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
		s := Status{
			Name: r.proc.Name, Kind: r.proc.Kind, HoldsLease: r.holdsLease(),
			Checkpoint: pos.Checkpoint.Position, Generation: pos.Generation,
			Head: head.Position, Lag: lag, Parked: parked,
		}
		if msg := r.lastErr(); msg != "" {
			s.LastError = &msg
		}
		out = append(out, s)
	}
	return out, nil
}
