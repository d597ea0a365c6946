package engine

import (
	"context"

	"library/internal/eventstore"
	"library/internal/processor"
)

// readAhead is a read of a view's next batch, started while the batch before it is applied:
// behind the log, a view's reads and its writes take turns on one connection each, and the
// database (or the view's code) would otherwise wait for one while doing the other. A read
// changes nothing, so one that is not taken (the apply failed, the lease went) is let go.
type readAhead struct {
	from   eventstore.Checkpoint
	size   int
	done   chan pageRead // gets the read's outcome, once
	cancel context.CancelFunc
}

// pageRead is what a read of the log returned, and, for a view that prepares its batches
// (processor.Preparer), what it made of the page's events.
type pageRead struct {
	page     eventstore.Page
	prepared processor.Prepared
	err      error
}

// stop lets the read go, if there is one.
func (r *readAhead) stop() {
	if r != nil {
		r.cancel()
	}
}

// startReadAhead starts reading size events after from for model, bounded as a step is, and
// preparing them.
func (h *holding) startReadAhead(model processor.ViewModel, from eventstore.Checkpoint, size int) *readAhead {
	ctx, cancel := h.bounded()
	r := &readAhead{from: from, size: size, done: make(chan pageRead, 1), cancel: cancel}
	go func() { r.done <- h.readPrepared(ctx, model, from, size) }()
	return r
}

// readPage reads size events after from for model, and prepares them: the read already
// started, when it is that one, or a read made now.
func (h *holding) readPage(model processor.ViewModel, ahead *readAhead, from eventstore.Checkpoint, size int) pageRead {
	if ahead != nil {
		defer ahead.cancel()
		if ahead.from == from && ahead.size == size {
			return <-ahead.done
		}
	}
	ctx, cancel := h.bounded()
	defer cancel()
	return h.readPrepared(ctx, model, from, size)
}

// readPrepared reads size events after from, and has model prepare them when it prepares its
// batches.
func (h *holding) readPrepared(ctx context.Context, model processor.ViewModel, from eventstore.Checkpoint, size int) pageRead {
	page, err := h.readTypes(ctx, from, size)
	r := pageRead{page: page, err: err}
	if p, ok := model.(processor.Preparer); ok && err == nil {
		r.prepared, r.err = p.Prepare(page.Events)
	}
	return r
}

// readTypes reads size events of the view's types after from: their data alone, when the view
// reads nothing else (Processor.DataOnly) and the log can leave the rest out.
func (h *holding) readTypes(ctx context.Context, from eventstore.Checkpoint, size int) (eventstore.Page, error) {
	if reader, ok := h.store.(eventstore.DataReader); ok && h.proc.DataOnly {
		return reader.ReadData(ctx, from, size, h.proc.Types)
	}
	return h.store.ReadTypes(ctx, from, size, h.proc.Types)
}
