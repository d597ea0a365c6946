package engine

import (
	"context"
	"time"
)

// saveIfDue saves the checkpoint at most once per ReadInterval while events keep coming, and at
// once when nothing is in hand: a holder that dies leaves the next one that much to handle again.
// A checkpoint that moved only past events of types the processor does not read is saved with
// the next that moves past one it handled, or after passedSaveEvery: a holder that dies before
// then leaves the next one those events to pass again, which costs it one read and handles
// nothing twice. So skipping costs no write per event, nor per read.
func (d *dispatcher) saveIfDue() (bool, error) {
	if d.done == d.saved || time.Now().Before(d.saveDueAt()) {
		return false, nil
	}
	return true, d.save()
}

// passedSaveEvery bounds how long a checkpoint that moved only past unread events goes unsaved.
const passedSaveEvery = 10 * time.Second

// saveDueAt is when the checkpoint, which done has moved past, is due to be saved.
func (d *dispatcher) saveDueAt() time.Time {
	switch {
	case !d.passedRead:
		return d.lastSave.Add(passedSaveEvery) // only events it does not read were passed
	case d.running == 0 && d.started == len(d.window):
		return time.Time{} // idle: at once
	default:
		return d.lastSave.Add(d.opts.ReadInterval)
	}
}

// save moves the checkpoint from where it was saved to done, with the timer changes made while
// handling the events it passes.
func (d *dispatcher) save() error {
	if d.done == d.saved || !d.loaded {
		return nil
	}
	ctx, cancel := d.bounded()
	defer cancel()
	if d.leased.Err() != nil {
		// The lease went with events finished. Saving them is still right if nobody has moved
		// the checkpoint meanwhile, and fenced if somebody has; it saves the next holder from
		// handling them again.
		ctx, cancel = context.WithTimeout(context.WithoutCancel(d.leased), time.Second)
		defer cancel()
	}
	if err := d.checkpoints.Save(ctx, d.proc.Name, d.saved, d.done, d.pending...); err != nil {
		return err
	}
	if len(d.pending) > 0 {
		d.wakeTimers()
	}
	d.opts.Observer.EventsHandled(d.proc.Name, d.unsaved)
	d.saved, d.unsaved, d.lastSave, d.pending, d.passedRead = d.done, 0, time.Now(), nil, false
	return nil
}
