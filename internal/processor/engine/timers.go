package engine

import (
	"time"

	"library/internal/processor"
	"library/internal/processor/engine/timers"
)

// startTimers runs the processor's timer loop beside the dispatcher, under the same holding,
// when its handler fires timers. It returns what waits for the loop to stop.
func (h *holding) startTimers() (wait func()) {
	fires, ok := h.proc.Handler.(processor.TimerHandler)
	if !ok {
		return func() {}
	}
	loop := &timers.Loop{Name: h.proc.Name, Handler: fires, Store: h.checkpoints, Options: h.opts,
		InFlight: h.proc.InFlight, Logger: h.logger, Fresh: h.fresh, Wake: h.timersWake, Succeeded: h.succeeded,
		Failed: func(err error) { h.record("timer: " + processor.PublicText(err)) },
	}
	if log, ok := h.store.(growingLog); ok {
		// Appends of any type: the commands of any stream come first. Asked of the log, not
		// subscribed to, so that a command wakes no goroutine of the timer loop's.
		loop.LogGrows = func() bool { return time.Since(log.GrewAt()) < logGrowing }
	}
	return loop.Start(h.shutdown, h.leased)
}

// growingLog is a log that tells when it last grew (eventstore.Memory and pgstore.Postgres).
type growingLog interface{ GrewAt() time.Time }

// logGrowing is how long after the last append the log counts as growing: long beside the
// time between the appends of commands that keep coming.
const logGrowing = 250 * time.Millisecond

// wakeTimers tells the timer loop that timers were written: one may be due sooner.
func (h *holding) wakeTimers() {
	select {
	case h.timersWake <- struct{}{}:
	default:
	}
}
