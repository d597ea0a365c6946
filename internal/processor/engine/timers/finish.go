package timers

import (
	"context"
	"sync"

	"library/internal/processor"
)

// finisher forgets the timers of a batch that fired, several in one write: the fire that
// finds no write under way writes its own timer, and then, until none is left, those that
// fired meanwhile. A fire's slot is free again before its timer is forgotten, so that the
// next fire need not wait for the write (with InFlight 1 as well: the fires are still one at
// a time, in due order). A holder that dies before the write leaves those timers to the next
// holder, which fires them again, as it would one in hand.
type finisher struct {
	loop   *Loop
	leased context.Context

	mu      sync.Mutex
	queued  []processor.FiredTimer
	writing bool
}

// finish forgets t, now or in the write under way's next.
func (f *finisher) finish(t processor.FiredTimer) {
	f.mu.Lock()
	f.queued = append(f.queued, t)
	if f.writing {
		f.mu.Unlock()
		return
	}
	f.writing = true
	for len(f.queued) > 0 {
		fired := f.queued
		f.queued = nil
		f.mu.Unlock()
		f.loop.persist(f.leased, func(ctx context.Context) error {
			return f.loop.Store.FinishTimers(ctx, f.loop.Name, fired...)
		})
		f.mu.Lock()
	}
	f.writing = false
	f.mu.Unlock()
}
