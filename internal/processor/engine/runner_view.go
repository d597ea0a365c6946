package engine

import (
	"context"
	"errors"
	"time"

	"library/internal/eventstore"
	"library/internal/processor"
)

// viewModel applies the log to a view's build a batch at a time, each batch in one transaction
// with the checkpoint, until the holding ends.
func (h *holding) viewModel() error {
	vm, err := h.openBuild()
	if vm == nil {
		return err
	}
	defer h.bulk.Store(false) // another holder, if any, writes it now
	v := viewReader{model: vm}
	defer func() { v.ahead.stop() }()
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
			v.ahead.stop()
			v, loaded = viewReader{model: vm, pos: p, through: p.Checkpoint, size: h.opts.BatchSize}, true
		}
		moved, read, err := h.applyNext(&v)
		if err == nil {
			err = h.tendBulk(&v, read == v.size)
		}
		switch {
		case errors.Is(err, processor.ErrBuildGone):
			return err // a newer build replaced it: its keeper stops this runner
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
		if moved {
			h.behindStreak = 0 // the horizon moved
		}
		h.readFull.Store(read == v.size)
		if read == v.size {
			v.size = h.opts.CatchUpBatchSize
			continue // more may be waiting: go on at once, in larger batches
		}
		v.size = h.opts.BatchSize
		h.waitForAppends(v.through, read)
	}
}

// openBuild returns the read model of the build, making its tables first when they are not
// there yet, and trying again while the store fails. It returns a nil model when the holding
// ends first, or when the build was dropped (ErrBuildGone).
func (h *holding) openBuild() (processor.ViewModel, error) {
	for failures := 0; ; {
		if over, err := h.ended(); over {
			return nil, err
		}
		ctx, cancel := h.bounded()
		vm, err := h.proc.View.Build(ctx, h.build)
		cancel()
		switch {
		case err == nil:
			return vm, nil
		case errors.Is(err, processor.ErrBuildGone):
			return nil, err
		}
		failures++
		h.storeFailed(err, failures)
	}
}

// viewReader is where a view's build is in the log: pos, its checkpoint as saved, and through,
// how far its reads have looked (past events of types it does not read, not yet saved); and
// how many events its next read asks for: Options.BatchSize, or, after a read that found as
// many as it asked for, Options.CatchUpBatchSize.
type viewReader struct {
	model   processor.ViewModel
	pos     processor.Position
	through eventstore.Checkpoint
	size    int
	bulk    viewBulk
	ahead   *readAhead // the next batch's read, when one was started
}

// applyNext reads and applies one batch of the log. It reports whether the reads moved on and
// how many events it applied.
func (h *holding) applyNext(v *viewReader) (moved bool, read int, err error) {
	got := h.readPage(v.model, v.ahead, v.through, v.size)
	v.ahead = nil
	page, err := got.page, got.err
	if err != nil {
		return false, 0, err
	}
	moved = v.through.Before(page.Through)
	v.through = page.Through
	if len(page.Events) == v.size {
		// More may be waiting, read in larger batches (see viewModel): read on meanwhile.
		v.ahead = h.startReadAhead(v.model, v.through, h.opts.CatchUpBatchSize)
	}
	ctx, cancel := h.bounded()
	defer cancel()
	if !v.pos.Checkpoint.Before(v.through) {
		return moved, 0, nil
	}
	if len(page.Events) == 0 && !h.catchingUp.Load() && time.Since(h.passedSavedAt) < passedSaveEvery {
		// Only events it does not read: the checkpoint is moved past them at most every
		// passedSaveEvery, as a handler processor's is (see saveIfDue).
		return moved, 0, nil
	}
	if !h.fresh() {
		return false, 0, errLeaseLost
	}
	to := processor.Position{Generation: v.pos.Generation, Checkpoint: v.through}
	if err := apply(ctx, v.model, got, v.pos, to); err != nil {
		return false, 0, err
	}
	v.pos, h.passedSavedAt = to, time.Now()
	h.opts.Observer.EventsHandled(h.proc.Name, len(page.Events))
	return moved, len(page.Events), nil
}

// reset starts a saga's next generation from the start of the log.
func (h *holding) reset(pos processor.Position) (processor.Position, error) {
	ctx, cancel := h.bounded()
	defer cancel()
	next := processor.Position{Generation: pos.Generation + 1}
	return next, h.checkpoints.Save(ctx, h.proc.Name, pos, next)
}

// waitForAppends waits for a reason to read the log again: an append's wake-up, the poll, an
// admin request, or, when committed events wait above the read horizon, a short while. After a
// read of more than one event it waits ReadInterval at least, so that appends which keep coming
// are read together, one read and one checkpoint per interval; an event that comes on its own
// is read at once.
func (h *holding) waitForAppends(through eventstore.Checkpoint, read int) {
	var soon <-chan time.Time
	if wait := h.behindWait(through); wait > 0 {
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

// apply applies what read found to model, moving its checkpoint from from to to: as prepared,
// when it was.
func apply(ctx context.Context, model processor.ViewModel, read pageRead, from, to processor.Position) error {
	if read.prepared != nil {
		return read.prepared.Apply(ctx, from, to)
	}
	return model.Apply(ctx, from, to, read.page.Events)
}
