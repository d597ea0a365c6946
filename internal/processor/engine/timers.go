package engine

import (
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
	return (&timers.Loop{Name: h.proc.Name, Handler: fires, Store: h.checkpoints, Options: h.opts,
		InFlight: h.proc.InFlight, Logger: h.logger, Fresh: h.fresh, Wake: h.timersWake, Succeeded: h.succeeded,
		Failed: func(err error) { h.record("timer: " + processor.PublicText(err)) }}).Start(h.shutdown, h.leased)
}

// wakeTimers tells the timer loop that timers were written: one may be due sooner.
func (h *holding) wakeTimers() {
	select {
	case h.timersWake <- struct{}{}:
	default:
	}
}
