// Package gate holds a handler processor's attempts back while what its handler depends on is
// down: the dispatcher of package engine passes every attempt at an event through one Gate.
package gate

import (
	"context"
	"sync"
	"time"

	"library/internal/processor"
)

// Gate holds a handler processor's events back while what its handler depends on is down (a
// Pause error, or the database unavailable). While it is closed no event is started, and the
// events in hand wait at it; once its backoff has passed, one of them goes through as a probe.
// The probe getting through (whatever else becomes of its event) opens the gate for all; the
// probe paused again closes it for twice as long, up to processor.StoreBackoff's limit. Attempts made
// while the gate is closed use up no event's attempts.
type Gate struct {
	mu       sync.Mutex
	closed   bool
	since    time.Time // when it closed
	until    time.Time // when the next probe may go
	failures int       // probes paused in a row, the one that closed it included
	probing  bool
	changed  chan struct{} // closed and replaced whenever the gate opens or a probe ends
}

// New returns an open gate.
func New() *Gate { return &Gate{changed: make(chan struct{})} }

// Enter waits until an attempt may go, and reports whether it is the probe. It returns ok false,
// at once, when a or b ends.
func (g *Gate) Enter(a, b context.Context) (probe, ok bool) {
	for {
		g.mu.Lock()
		if !g.closed {
			g.mu.Unlock()
			return false, true
		}
		wait, probing, changed := time.Until(g.until), g.probing, g.changed
		if wait <= 0 && !probing {
			g.probing = true
			g.mu.Unlock()
			return true, true
		}
		g.mu.Unlock()
		var timer *time.Timer
		var due <-chan time.Time
		if !probing { // while a probe is out, only its end can let anyone through
			timer = time.NewTimer(wait)
			due = timer.C
		}
		select {
		case <-changed:
		case <-due:
		case <-a.Done():
		case <-b.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if a.Err() != nil || b.Err() != nil {
			return false, false
		}
	}
}

// Passed records an attempt that got through: the gate opens.
func (g *Gate) Passed() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.probing {
		g.closed, g.probing, g.failures = false, false, 0
		g.broadcast()
	}
}

// Paused records an attempt that was paused. The gate closes if it was open; a probe paused
// again keeps it closed for longer. An attempt that was under way when the gate closed changes
// nothing: it waits at the gate like the others.
func (g *Gate) Paused(probe bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case !g.closed:
		g.closed, g.since, g.failures = true, time.Now(), 1
	case probe:
		g.probing = false
		g.failures++
	default:
		return
	}
	g.until = time.Now().Add(processor.StoreBackoff(g.failures))
	g.broadcast()
}

// Abandon ends a probe that neither got through nor was paused (its holding ended): another
// attempt may probe.
func (g *Gate) Abandon(probe bool) {
	if !probe {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.probing = false
	g.broadcast()
}

func (g *Gate) broadcast() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// State reports whether the gate is closed, and since when.
func (g *Gate) State() (closed bool, since time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed, g.since
}

// Changed is closed when the gate opens or a probe ends: a wait for the next attempt also
// waits on it.
func (g *Gate) Changed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.changed
}
