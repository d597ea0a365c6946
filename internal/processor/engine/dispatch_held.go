package engine

import (
	"time"

	"library/internal/eventstore"
)

// heldEvent is an event its handler handed back untried (Later). It stays in hand (in busy,
// and in dueRunning when it is a deferred event; the checkpoint stays below it) but holds no
// slot, and is started again once ready is closed.
type heldEvent struct {
	event   eventstore.Event
	attempt int    // the attempt it was handed back at, which it keeps
	entry   *entry // its entry in the window; nil for a deferred event
	ready   <-chan struct{}
}

// hold keeps an event the handler handed back, until its Ready closes or the holding ends.
func (d *dispatcher) hold(h *heldEvent) {
	d.held[h.event.Position] = h
	ready := h.ready
	if ready == nil {
		ready = afterChan(laterRetry)
	}
	go func() {
		select {
		case <-ready:
		case <-d.leased.Done():
			return
		}
		select {
		case d.readied <- h:
		case <-d.leased.Done():
		}
	}()
}

// readyAgain queues a held event whose Ready closed, unless it was dropped meanwhile.
func (d *dispatcher) readyAgain(h *heldEvent) {
	if d.held[h.event.Position] == h {
		d.ready = append(d.ready, h)
	}
}

// dropHeld forgets the held events, when the dispatcher starts again from the checkpoint (which
// is below them, so they are read again) or replays.
func (d *dispatcher) dropHeld() {
	for pos, h := range d.held {
		delete(d.busy, pos)
		if h.entry == nil {
			d.dueRunning--
		}
	}
	clear(d.held)
	d.ready = nil
}

// afterChan is a channel closed after wait.
func afterChan(wait time.Duration) <-chan struct{} {
	c := make(chan struct{})
	time.AfterFunc(wait, func() { close(c) })
	return c
}
