package engine

import (
	"context"
	"time"
)

// saveIfDue saves the checkpoint at most once per ReadInterval while events keep coming, and at
// once when nothing is in hand: a holder that dies leaves the next one that much to handle again.
func (d *dispatcher) saveIfDue() (bool, error) {
	if d.done == d.saved {
		return false, nil
	}
	idle := d.running == 0 && d.started == len(d.window)
	if !idle && time.Since(d.lastSave) < d.opts.ReadInterval {
		return false, nil
	}
	return true, d.save()
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
	d.saved, d.unsaved, d.lastSave, d.pending = d.done, 0, time.Now(), nil
	return nil
}
