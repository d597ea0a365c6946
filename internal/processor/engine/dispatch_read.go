package engine

import (
	"context"
	"time"

	"library/internal/eventstore"
)

// A handler processor's reads of the log: into its window, BatchSize at a time, or
// CatchUpBatchSize while it is behind.

// readSize is how many events a read asks for: BatchSize, or CatchUpBatchSize while behind.
func (d *dispatcher) readSize() int {
	if d.behind {
		return d.opts.CatchUpBatchSize
	}
	return d.opts.BatchSize
}

// windowSize bounds the events read ahead of the low-water mark.
func (d *dispatcher) windowSize() int { return 2 * max(d.readSize(), d.inFlight) }

// read reads the log into the window when there may be more and there is room.
func (d *dispatcher) read() (bool, error) {
	room := d.windowSize() - len(d.window)
	if !d.readWanted || d.started < len(d.window) || room <= 0 || time.Now().Before(d.readNotBefore) {
		return false, nil
	}
	limit := min(d.readSize(), room)
	ctx, cancel := d.bounded()
	page, err := d.readTypes(ctx, limit)
	cancel()
	if err != nil {
		return false, err
	}
	events := page.Events
	for _, e := range events {
		if d.selector != nil && !d.selector.Selects(e) {
			d.passedRead = true // passed over, as if handled: saved as a handled event is
			continue
		}
		d.window = append(d.window, &entry{event: e})
	}
	if d.readFrom.Before(page.Through) {
		d.behindStreak = 0 // the horizon moved
		d.readFrom = page.Through
		d.passSkipped()
	}
	d.readSinceWait += len(events)
	if len(events) == limit {
		d.behind = true
		return true, nil // more may be waiting: read on, in larger batches
	}
	d.behind = false
	// Caught up. Appends that keep coming are read together: one read per interval, not one
	// per append; an event that comes on its own is read at once.
	d.readWanted = false
	if d.readSinceWait > 1 {
		d.readNotBefore = time.Now().Add(d.opts.ReadInterval)
	}
	d.readSinceWait = 0
	if wait := d.behindWait(d.readFrom); wait > 0 {
		// Committed events wait above the read horizon, behind a transaction that is still
		// running; its commit wakes nobody, so look again shortly rather than at the poll.
		d.soon = time.Now().Add(wait)
	}
	return len(events) > 0, nil
}

// readTypes reads at most limit events of the processor's types after readFrom: those below
// its SchemaBelow alone, where the log can pass over the rest.
func (d *dispatcher) readTypes(ctx context.Context, limit int) (eventstore.Page, error) {
	if reader, ok := d.store.(eventstore.OlderReader); ok && d.proc.SchemaBelow > 0 && len(d.proc.Types) > 0 {
		return reader.ReadOlder(ctx, d.readFrom, limit, d.proc.Types, d.proc.SchemaBelow)
	}
	return d.store.ReadTypes(ctx, d.readFrom, limit, d.proc.Types)
}
