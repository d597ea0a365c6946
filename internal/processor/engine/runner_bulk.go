package engine

import (
	"context"
	"time"

	"library/internal/processor"
)

// viewBulk is where a view's build is in writing in bulk (processor.BulkWriter), since the
// runner last read its checkpoint.
type viewBulk struct {
	on bool // StartBulk succeeded and EndBulk has not yet
	// asked is set once this catch-up was weighed for bulk, until the build catches up.
	asked bool
	// ended is set once EndBulk succeeded since the checkpoint was read: until then, what a
	// holder before may have put off is not known to be whole.
	ended bool
}

// tendBulk starts a view's bulk writing when a full read (full) finds it far behind, and ends
// it when a read finds it caught up; a view model that is no BulkWriter is left alone.
func (h *holding) tendBulk(v *viewReader, full bool) error {
	w, ok := v.model.(processor.BulkWriter)
	if !ok {
		return nil
	}
	switch {
	case full && !v.bulk.asked && !v.bulk.on:
		v.bulk.asked = true
		return h.startBulk(w, v)
	case full:
		return nil
	case v.bulk.on || !v.bulk.ended:
		return h.endBulk(w, v)
	}
	v.bulk.asked = false
	return nil
}

// startBulk starts bulk writing when at least as many events as the view asks for wait.
func (h *holding) startBulk(w processor.BulkWriter, v *viewReader) error {
	ctx, cancel := h.bounded()
	defer cancel()
	from, err := w.BulkFrom(ctx)
	if err != nil || from <= 0 {
		return err
	}
	waiting, err := h.store.CountAfterUpTo(ctx, v.pos.Checkpoint, from, h.proc.Types...)
	if err != nil || waiting < from {
		return err
	}
	if !h.fresh() {
		return errLeaseLost
	}
	if err := w.StartBulk(ctx, v.pos); err != nil {
		return err
	}
	v.bulk.on, v.bulk.ended = true, false
	h.bulk.Store(true)
	h.logger.Info("writing a catch-up in bulk", "processor", h.proc.Name, "waiting", waiting)
	return nil
}

// endBulk ends bulk writing, or makes sure that nothing is left put off: bounded by the lease
// only, as making a large index whole may take longer than a step.
func (h *holding) endBulk(w processor.BulkWriter, v *viewReader) error {
	if !h.fresh() {
		return errLeaseLost
	}
	ctx, cancel := context.WithCancel(h.leased)
	defer cancel()
	defer context.AfterFunc(h.shutdown, cancel)()
	start := time.Now()
	if err := w.EndBulk(ctx, v.pos); err != nil {
		return err
	}
	if v.bulk.on {
		h.logger.Info("caught up in bulk: what it put off is whole again", "processor", h.proc.Name,
			"took", time.Since(start).Round(time.Millisecond).String())
	}
	v.bulk = viewBulk{ended: true}
	h.bulk.Store(false)
	return nil
}
