package engine

import (
	"time"

	"library/internal/processor"
)

// viewModel applies the log to a view model a batch at a time, each batch in one transaction
// with the checkpoint, until the holding ends.
func (h *holding) viewModel() error {
	var pos processor.Position
	loaded, failures := false, 0
	for {
		if over, err := h.ended(); over {
			return err
		}
		if !loaded {
			p, err := h.load()
			if err != nil {
				failures++
				h.storeFailed(err, failures)
				continue
			}
			pos, loaded = p, true
		}
		next, read, err := h.applyNext(pos)
		switch {
		case err != nil && h.leased.Err() == nil:
			// Fenced (another holder moved the checkpoint) or failed (the outcome of a failed
			// write is unknown): either way, read the checkpoint again and go on from there. A
			// replica that lost its lease without knowing yet finds out at its next check.
			failures++
			loaded = false
			h.storeFailed(err, failures)
			continue
		case err != nil:
			continue // the lease is lost: the loop's head returns
		}
		failures = 0
		h.succeeded()
		if read != 0 {
			h.behindStreak = 0 // the horizon moved
		}
		pos = next
		if read < 0 || read == h.opts.BatchSize {
			continue // more may be waiting: go on at once
		}
		h.waitForAppends(pos, read)
	}
}

// applyNext does one thing: a requested replay, or one batch of the log. It returns the new
// position and how many events it read (-1 for a replay).
func (h *holding) applyNext(pos processor.Position) (next processor.Position, read int, err error) {
	if h.replayWanted.Swap(false) {
		next, err := h.reset(pos)
		if err != nil {
			h.replayWanted.Store(true)
			return pos, -1, err
		}
		h.logger.Info("replaying from the start of the log", "processor", h.proc.Name, "generation", next.Generation)
		return next, -1, nil
	}
	ctx, cancel := h.bounded()
	defer cancel()
	events, err := h.store.ReadAll(ctx, pos.Checkpoint, h.opts.BatchSize)
	if err != nil || len(events) == 0 {
		return pos, 0, err
	}
	if !h.fresh() {
		return pos, 0, errLeaseLost
	}
	to := processor.Position{Generation: pos.Generation, Checkpoint: events[len(events)-1].Checkpoint()}
	if err := h.proc.ViewModel.Apply(ctx, pos, to, events); err != nil {
		return pos, 0, err
	}
	h.opts.Observer.EventsHandled(h.proc.Name, len(events))
	return to, len(events), nil
}

// reset starts the next generation from the start of the log.
func (h *holding) reset(pos processor.Position) (processor.Position, error) {
	ctx, cancel := h.bounded()
	defer cancel()
	next := processor.Position{Generation: pos.Generation + 1}
	if h.proc.ViewModel != nil {
		return next, h.proc.ViewModel.Reset(ctx, pos)
	}
	return next, h.checkpoints.Save(ctx, h.proc.Name, pos, next)
}

// waitForAppends waits for a reason to read the log again: an append's wake-up, the poll, an
// admin request, or, when committed events wait above the read horizon, a short while. After a
// read of more than one event it waits ReadInterval at least, so that appends which keep coming
// are read together, one read and one checkpoint per interval; an event that comes on its own
// is read at once.
func (h *holding) waitForAppends(pos processor.Position, read int) {
	var soon <-chan time.Time
	if wait := h.behindWait(pos.Checkpoint); wait > 0 {
		// Committed events wait above the read horizon, behind a transaction that is still
		// running; its commit wakes nobody, so look again shortly rather than at the poll.
		timer := time.NewTimer(wait)
		defer timer.Stop()
		soon = timer.C
	}
	caughtUp := time.Now()
	select {
	case <-h.shutdown.Done():
	case <-h.leased.Done():
	case <-h.wakeups:
	case <-h.poll.C:
	case <-soon:
	case <-h.wake:
	}
	if read > 1 {
		sleep(h.shutdown, h.leased, h.opts.ReadInterval-time.Since(caughtUp))
	}
}
