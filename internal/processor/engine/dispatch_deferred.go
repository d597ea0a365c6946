package engine

import (
	"time"
)

// refreshNextDue asks the store when the next deferred event is due, once the due events in
// hand are done with (until then their old times would say "now").
func (d *dispatcher) refreshNextDue() (bool, error) {
	if !d.nextDueStale || len(d.due) > 0 || d.dueRunning > 0 {
		return false, nil
	}
	ctx, cancel := d.bounded()
	defer cancel()
	next, ok, err := d.checkpoints.NextAttempt(ctx, d.proc.Name)
	if err != nil {
		return false, err
	}
	d.nextDue, d.nextDueStale = time.Time{}, false
	if ok {
		d.nextDue = next
	}
	return false, nil
}

// fetchDue reads the deferred events whose time has come, a batch at a time.
func (d *dispatcher) fetchDue() (bool, error) {
	if d.nextDue.IsZero() || time.Now().Before(d.nextDue) || len(d.due) > 0 || d.dueRunning > 0 {
		return false, nil
	}
	if closed, _ := d.gate.State(); closed {
		return false, nil
	}
	ctx, cancel := d.bounded()
	defer cancel()
	due, err := d.checkpoints.Due(ctx, d.proc.Name, time.Now(), d.opts.BatchSize)
	if err != nil {
		return false, err
	}
	d.due, d.nextDue, d.nextDueStale = due, time.Time{}, true
	return len(due) > 0, nil
}

// wait waits for something to do: a worker's result, an append, the poll, an admin request, the
// gate opening, or the next thing on the clock (a read, a save, a deferred event, telling the
// handler it is idle).
func (d *dispatcher) wait() {
	now := time.Now()
	var next time.Time
	later := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if d.readWanted {
		later(d.readNotBefore)
	}
	later(d.soon)
	if d.done != d.saved {
		later(d.saveDueAt())
	}
	if len(d.due) == 0 && d.dueRunning == 0 {
		later(d.nextDue)
	}
	idleAt := time.Time{}
	if d.idler != nil && !d.lastBusy.IsZero() && d.running == 0 {
		idleAt = d.lastBusy.Add(idleAfter)
		later(idleAt)
	}
	var timer <-chan time.Time
	if !next.IsZero() {
		t := time.NewTimer(max(next.Sub(now), time.Millisecond))
		defer t.Stop()
		timer = t.C
	}
	gateChanged := d.gate.Changed()

	select {
	case res := <-d.results:
		d.finished(res)
	case h := <-d.readied:
		d.readyAgain(h)
	case <-d.wakeups:
		d.readWanted = true
	case <-d.poll.C:
		d.readWanted = true
	case <-d.wake:
	case <-gateChanged:
	case <-timer:
	case <-d.shutdown.Done():
	case <-d.leased.Done():
	}
	now = time.Now()
	if !d.soon.IsZero() && !now.Before(d.soon) {
		d.soon, d.readWanted = time.Time{}, true
	}
	if !idleAt.IsZero() && !now.Before(idleAt) && d.running == 0 {
		d.idler.Idle()
		d.lastBusy = time.Time{}
	}
}
