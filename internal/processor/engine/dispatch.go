package engine

import (
	"time"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/engine/gate"
)

// dispatcher runs a handler processor (an outbox or a saga) while its lease is held. It reads
// the log into a window, starts up to Processor.InFlight events at once, each on a goroutine of
// its own, and moves the checkpoint to the end of the window's longest run of events that are
// finished with (handled, deferred or parked): the low-water mark, so that the next holder
// never skips an event that was still in hand. Deferred events whose time has come are started
// alongside the log's. Everything but the handling itself happens on the dispatcher's goroutine.
type dispatcher struct {
	*holding
	handler  processor.Handler
	inFlight int
	gate     *gate.Gate
	idler    processor.Idler    // nil when the handler keeps nothing open
	selector processor.Selector // nil when the handler takes every event of its types

	loaded   bool
	saved    processor.Position    // the checkpoint as last saved or loaded
	done     processor.Position    // where the window's finished run ends
	readFrom eventstore.Checkpoint // where the next read of the log starts
	window   []*entry              // events read and not yet passed by done, in log order
	started  int                   // window[:started] have been started
	busy     map[int64]bool        // positions in hand, from the log or deferred
	running  int                   // events in hand
	results  chan result
	unsaved  int // events passed by done since the last save, deferred ones left out
	// passedRead: done has passed events it read since the last save, not only unread ones.
	passedRead bool
	pending    []processor.TimerChange // made handling the events passed by done since the last save, in log order
	lastSave   time.Time

	readWanted    bool      // an append, a poll or a full batch says there may be more to read
	behind        bool      // the last read found as many events as it asked for
	readNotBefore time.Time // reads wait this long after catching up, to batch appends that keep coming
	readSinceWait int
	soon          time.Time // read again then: committed events wait above the read horizon

	due          []processor.Deferred // deferred events whose time has come, not started yet
	dueRunning   int                  // deferred events in hand
	nextDue      time.Time            // the earliest next attempt known; zero: none
	nextDueStale bool                 // ask the store for nextDue once the due events in hand are done

	held    map[int64]*heldEvent // handed back by the handler (Later), by position; see dispatch_held.go
	ready   []*heldEvent         // held events whose Ready has closed, to start first
	readied chan *heldEvent      // a held event's Ready closed

	lastBusy time.Time // when the handler last had work; zero once it was told it is idle
	failures int       // failures of the log or the checkpoints in a row
}

// entry is an event read from the log, in the window.
type entry struct {
	event    eventstore.Event
	done     bool
	deferred bool                    // done with for now: it waits among the deferred events
	changes  []processor.TimerChange // made while handling it: saved with the checkpoint that passes it
}

// result is what a worker reports when it is done with an event.
type result struct {
	entry    *entry // nil for a deferred event
	position int64
	// done: the event is finished with (handled, deferred or parked). Otherwise the holding
	// ended before it was, and the next holder handles it again.
	done bool
	// deferredTo is the event's next attempt, when it was deferred.
	deferredTo time.Time
	// held is set when the handler handed the event back untried (Later): it is still in
	// hand, out of its slot.
	held    *heldEvent
	changes []processor.TimerChange // the timers the handler changed, when it handled the event
}

func newDispatcher(h *holding) *dispatcher {
	inFlight := max(1, h.proc.InFlight)
	d := &dispatcher{
		holding:  h,
		handler:  h.proc.Handler,
		inFlight: inFlight,
		gate:     gate.New(),
		busy:     map[int64]bool{},
		results:  make(chan result, inFlight),
		held:     map[int64]*heldEvent{},
		readied:  make(chan *heldEvent),
	}
	d.idler, _ = h.proc.Handler.(processor.Idler)
	d.selector, _ = h.proc.Handler.(processor.Selector)
	return d
}

// run dispatches until the holding ends: nil for a shutdown, errLeaseLost when the lease went.
func (d *dispatcher) run() error {
	if d.idler != nil {
		defer d.idler.Idle()
	}
	for {
		d.collect()
		if over, err := d.ended(); over {
			d.finish()
			return err
		}
		progressed, err := d.step()
		switch {
		case err != nil && d.leased.Err() == nil:
			d.recover(err)
		case err == nil && !progressed:
			d.wait()
		}
	}
}

// step does what can be done now, and reports whether it did anything.
func (d *dispatcher) step() (progressed bool, err error) {
	if !d.loaded {
		if err := d.reload(); err != nil {
			return false, err
		}
	}
	if d.replayWanted.Load() {
		return d.replay()
	}
	if d.requeueWaiting.Swap(false) {
		d.nextDueStale = true
	}
	steps := []func() (bool, error){d.refreshNextDue, d.fetchDue, d.read, d.start, d.saveIfDue}
	for _, s := range steps {
		p, err := s()
		if err != nil {
			return progressed, err
		}
		progressed = progressed || p
	}
	d.failures = 0
	return progressed, nil
}

// reload starts again from the shared checkpoint, with nothing in hand.
func (d *dispatcher) reload() error {
	d.dropHeld()
	pos, err := d.load()
	if err != nil {
		return err
	}
	d.loaded, d.saved, d.done, d.readFrom = true, pos, pos, pos.Checkpoint
	d.window, d.started, d.unsaved, d.pending, d.passedRead = nil, 0, 0, nil, false
	d.due, d.nextDueStale, d.readWanted = nil, true, true
	return nil
}

// recover handles a failure of the log or the checkpoints: what is in hand is let finish, and
// after a backoff the dispatcher starts again from the shared checkpoint (the outcome of a
// failed write is unknown, and a fenced one means another holder moved it).
func (d *dispatcher) recover(err error) {
	d.failures++
	for d.running > 0 {
		d.finished(<-d.results)
	}
	_ = d.save() // what was finished need not be handled again, if the store takes it now
	d.loaded = false
	d.storeFailed(err, d.failures)
}

// finish ends a holding: nothing more is started, what is in hand ends (handlers finish on a
// shutdown and are cancelled when the lease is lost) and the checkpoint moves past what was
// finished.
func (d *dispatcher) finish() {
	for d.running > 0 {
		d.finished(<-d.results)
	}
	if err := d.save(); err != nil && d.loaded {
		d.logger.Warn("checkpoint not saved on the way out; the next holder handles those events again",
			"processor", d.proc.Name, "error", err)
	}
}

// replay starts the next generation from the start of the log, once nothing is in hand.
func (d *dispatcher) replay() (bool, error) {
	if d.running > 0 {
		return false, nil // wait for the events in hand
	}
	d.dropHeld()
	if err := d.save(); err != nil {
		return false, err
	}
	next, err := d.reset(d.saved)
	if err != nil {
		return false, err
	}
	d.replayWanted.Store(false)
	d.logger.Info("replaying from the start of the log", "processor", d.proc.Name, "generation", next.Generation)
	d.loaded, d.saved, d.done, d.readFrom = true, next, next, next.Checkpoint
	d.window, d.started, d.readWanted = nil, 0, true
	return true, nil
}

// start starts events while there are free slots: held events that may go again first, then
// due deferred events, then the window's.
func (d *dispatcher) start() (bool, error) {
	if closed, _ := d.gate.State(); closed || d.replayWanted.Load() {
		return false, nil
	}
	progressed := false
	for d.running < d.inFlight {
		switch {
		case len(d.ready) > 0:
			h := d.ready[0]
			d.ready = d.ready[1:]
			delete(d.held, h.event.Position)
			d.launch(h.event, h.attempt, h.entry) // still counted in busy and dueRunning
		case len(d.due) > 0:
			next := d.due[0]
			d.due = d.due[1:]
			if d.busy[next.Event.Position] {
				// In hand from the log: try it again shortly, once that is done.
				d.nextDue, d.nextDueStale = time.Now().Add(behindRetry), false
				continue
			}
			d.dueRunning++
			d.launch(next.Event, next.Attempts+1, nil)
		case d.started < len(d.window) && !d.busy[d.window[d.started].event.Position]:
			e := d.window[d.started]
			d.started++
			d.launch(e.event, 1, e)
		default:
			return progressed, nil
		}
		progressed = true
	}
	return progressed, nil
}

// launch hands an event to a worker of its own.
func (d *dispatcher) launch(e eventstore.Event, attempt int, from *entry) {
	d.running++
	d.inFlight64(1)
	d.busy[e.Position] = true
	d.lastBusy = time.Now()
	go func() { d.results <- d.handle(e, attempt, from) }()
}

func (d *dispatcher) inFlight64(delta int64) { d.runner.inFlight.Add(delta) }

// collect takes the results that are in, without waiting.
func (d *dispatcher) collect() {
	for {
		select {
		case res := <-d.results:
			d.finished(res)
		case h := <-d.readied:
			d.readyAgain(h)
		default:
			return
		}
	}
}

// finished takes one worker's result and moves done along the window.
func (d *dispatcher) finished(res result) {
	d.running--
	d.inFlight64(-1)
	if res.held != nil {
		d.hold(res.held)
		return
	}
	delete(d.busy, res.position)
	if res.entry == nil {
		d.dueRunning--
		if res.done && res.deferredTo.IsZero() {
			d.opts.Observer.EventsHandled(d.proc.Name, 1)
		}
	} else {
		res.entry.done, res.entry.deferred, res.entry.changes = res.done, !res.deferredTo.IsZero(), res.changes
	}
	if !res.deferredTo.IsZero() && (d.nextDue.IsZero() || res.deferredTo.Before(d.nextDue)) {
		d.nextDue = res.deferredTo
	}
	for len(d.window) > 0 && d.window[0].done {
		d.done = processor.Position{Generation: d.saved.Generation, Checkpoint: d.window[0].event.Checkpoint()}
		if !d.window[0].deferred {
			d.unsaved++ // a deferred event is counted when it is finally done with
		}
		d.pending = append(d.pending, d.window[0].changes...)
		d.passedRead = true
		d.window = d.window[1:]
		d.started--
	}
	d.passSkipped()
}

// passSkipped moves done past the events of types the processor does not read, up to where
// the last read looked, once nothing read before them is left in the window.
func (d *dispatcher) passSkipped() {
	if len(d.window) > 0 || !d.done.Checkpoint.Before(d.readFrom) {
		return
	}
	d.done = processor.Position{Generation: d.saved.Generation, Checkpoint: d.readFrom}
}
