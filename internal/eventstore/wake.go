package eventstore

import (
	"context"
	"sync"
)

// Wakeups fans one signal ("the log has grown") out to every subscriber: what a Store's
// Subscribe hands out. A subscriber's channel holds at most one pending value, so a slow reader
// is never blocked on and never falls behind: it reads the log once for any number of appends.
// The zero value is ready to use.
type Wakeups struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
	// OnFirst and OnLast, when set, run under the Wakeups' lock as the first subscriber arrives
	// and the last one leaves. The PostgreSQL store starts and stops its listener with them.
	// Set them before the first Subscribe.
	OnFirst func()
	OnLast  func()
}

// Subscribe returns a channel that receives a value after each Wake that finds it empty, and is
// closed when ctx ends.
func (w *Wakeups) Subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.subs == nil {
		w.subs = make(map[chan struct{}]struct{})
	}
	w.subs[ch] = struct{}{}
	if len(w.subs) == 1 && w.OnFirst != nil {
		w.OnFirst()
	}
	w.mu.Unlock()

	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs, ch)
		close(ch)
		if len(w.subs) == 0 && w.OnLast != nil {
			w.OnLast()
		}
	})
	return ch
}

// Wake signals every subscriber.
func (w *Wakeups) Wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// Locked runs f under the lock that OnFirst and OnLast run under.
func (w *Wakeups) Locked(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
}
