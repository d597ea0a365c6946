package engine

import (
	"context"

	"library/internal/eventstore"
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

// pageRead is what a read of the log returned.
type pageRead struct {
	page eventstore.Page
	err  error
}

// stop lets the read go, if there is one.
func (r *readAhead) stop() {
	if r != nil {
		r.cancel()
	}
}

// startReadAhead starts reading size events after from, bounded as a step is.
func (h *holding) startReadAhead(from eventstore.Checkpoint, size int) *readAhead {
	ctx, cancel := h.bounded()
	r := &readAhead{from: from, size: size, done: make(chan pageRead, 1), cancel: cancel}
	go func() {
		page, err := h.readTypes(ctx, from, size)
		r.done <- pageRead{page: page, err: err}
	}()
	return r
}

// readPage reads size events after from: the read already started, when it is that one, or a
// read made now.
func (h *holding) readPage(ahead *readAhead, from eventstore.Checkpoint, size int) (eventstore.Page, error) {
	if ahead != nil {
		defer ahead.cancel()
		if ahead.from == from && ahead.size == size {
			r := <-ahead.done
			return r.page, r.err
		}
	}
	ctx, cancel := h.bounded()
	defer cancel()
	return h.readTypes(ctx, from, size)
}

// readTypes reads size events of the view's types after from: their data alone, when the view
// reads nothing else (Processor.DataOnly) and the log can leave the rest out.
func (h *holding) readTypes(ctx context.Context, from eventstore.Checkpoint, size int) (eventstore.Page, error) {
	if reader, ok := h.store.(eventstore.DataReader); ok && h.proc.DataOnly {
		return reader.ReadData(ctx, from, size, h.proc.Types)
	}
	return h.store.ReadTypes(ctx, from, size, h.proc.Types)
}
