package eventstore

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Wakeups fans one signal ("the log has grown by events of these types") out to the subscribers
// that read those types: what a Store's Subscribe hands out. A subscriber's channel holds at
// most one pending value, so a slow reader is never blocked on and never falls behind: it reads
// the log once for any number of appends. The zero value is ready to use.
type Wakeups struct {
	grewAt atomic.Int64 // the last Wake, in Unix nanoseconds

	mu   sync.Mutex
	subs map[chan struct{}][]string // the types each reads; empty: every type
	// OnFirst and OnLast, when set, run under the Wakeups' lock as the first subscriber arrives
	// and the last one leaves. The PostgreSQL store starts and stops its listener with them.
	// Set them before the first Subscribe.
	OnFirst func()
	OnLast  func()
}

// Subscribe returns a channel that receives a value after each Wake of one of types (or of any
// type, when types is empty) that finds it empty, and is closed when ctx ends.
func (w *Wakeups) Subscribe(ctx context.Context, types ...string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.subs == nil {
		w.subs = make(map[chan struct{}][]string)
	}
	w.subs[ch] = slices.Clone(types)
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

// Wake signals every subscriber that reads one of the appended types; every subscriber when
// appended is empty (what was appended is not known).
func (w *Wakeups) Wake(appended ...string) {
	w.grewAt.Store(time.Now().UnixNano())
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch, types := range w.subs {
		if !readsAny(types, appended) {
			continue
		}
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// GrewAt is when Wake was last called: when the log last grew, as far as this process has
// heard (zero: not yet). Reading it wakes nobody.
func (w *Wakeups) GrewAt() time.Time {
	if n := w.grewAt.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// Locked runs f under the lock that OnFirst and OnLast run under.
func (w *Wakeups) Locked(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
}
