package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// counts is an Observer that counts what it is told, per processor.
type counts struct {
	mu       sync.Mutex
	taken    map[string]int
	released map[string]int
	handled  map[string]int
	failed   map[string]int
}

func newCounts() *counts {
	return &counts{taken: map[string]int{}, released: map[string]int{}, handled: map[string]int{}, failed: map[string]int{}}
}

func (c *counts) add(m map[string]int, name string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m[name] += n
}

func (c *counts) get(m map[string]int, name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return m[name]
}

func (c *counts) LeaseTaken(p string)           { c.add(c.taken, p, 1) }
func (c *counts) LeaseReleased(p string)        { c.add(c.released, p, 1) }
func (c *counts) EventsHandled(p string, n int) { c.add(c.handled, p, n) }
func (c *counts) Failed(p string)               { c.add(c.failed, p, 1) }

// parkCounter is a recorder that is told when its events are parked.
type parkCounter struct {
	*drivertest.Recorder
	mu     sync.Mutex
	parked []int64
}

func (p *parkCounter) Parked(e eventstore.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parked = append(p.parked, e.Position)
}

func (p *parkCounter) parkedPositions() []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int64(nil), p.parked...)
}

// The observer hears of the lease, of every event done with (parked ones included), and of
// every failed attempt; the handler hears of the events parked, whichever way they were.
func TestObserverHearsWhatRunnersDo(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 9)
	failing, hopeless := events[1], events[6]
	h := &parkCounter{Recorder: drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		switch e.Position {
		case failing.Position:
			return errors.New("smtp: connection refused")
		case hopeless.Position:
			return processor.Park("member has no email address")
		}
		return nil
	})}
	seen := newCounts()
	cfg := env.config()
	cfg.Options.Observer = seen
	g := startGroup(t, cfg, outbox("emails", h), viewModel("catalog", newMemoryView(env.cps)))

	drivertest.Eventually(t, 5*time.Second, func() bool {
		return seen.get(seen.handled, "emails") == len(events) && seen.get(seen.handled, "catalog") == len(events)
	}, "every event is done with")
	require.ElementsMatch(t, []int64{failing.Position, hopeless.Position}, h.parkedPositions())
	require.Equal(t, 3+1, seen.get(seen.failed, "emails"), "three attempts of one event, one of the other")
	require.Zero(t, seen.get(seen.failed, "catalog"))
	require.Equal(t, 1, seen.get(seen.taken, "emails"))
	require.Equal(t, 1, seen.get(seen.taken, "catalog"))
	require.Zero(t, seen.get(seen.released, "emails"))

	stopGroup(t, g)
	require.Equal(t, 1, seen.get(seen.released, "emails"), "stopping releases the lease")
	require.Equal(t, 1, seen.get(seen.released, "catalog"))
}
