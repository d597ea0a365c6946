package eventstore

import (
	"context"
	"sync"
)

// wakeups fans one signal ("the log has grown") out to every subscriber. A subscriber's channel
// holds at most one pending value, so a slow reader is never blocked on and never falls behind:
// it reads the log once for any number of appends.
type wakeups struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
	// onFirst and onLast, when set, run under mu as the first subscriber arrives and the last
	// one leaves. The PostgreSQL store starts and stops its listener with them.
	onFirst func()
	onLast  func()
}

func (w *wakeups) subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.subs == nil {
		w.subs = make(map[chan struct{}]struct{})
	}
	w.subs[ch] = struct{}{}
	if len(w.subs) == 1 && w.onFirst != nil {
		w.onFirst()
	}
	w.mu.Unlock()

	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs, ch)
		close(ch)
		if len(w.subs) == 0 && w.onLast != nil {
			w.onLast()
		}
	})
	return ch
}

func (w *wakeups) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}
