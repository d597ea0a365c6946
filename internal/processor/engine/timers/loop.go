// Package timers fires a processor's timers while its lease is held: the loop that package
// engine runs beside the dispatcher of a processor whose Handler is a processor.TimerHandler,
// under the same holding, and stops with it. What it promises (once, in due order, by the
// store's clock, through a takeover) is in package processor's comment, under "Timers".
package timers

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"library/internal/errs"
	"library/internal/processor"
)

// Loop fires one processor's timers while its lease is held.
type Loop struct {
	Name    string
	Handler processor.TimerHandler
	Store   processor.Timers
	// Options are the processor's, with their defaults: BatchSize timers are read at a time,
	// each call has StepTimeout, a failed fire is tried again on the Retry schedule, and the
	// store is asked again every PollInterval at least.
	Options processor.Options
	// InFlight is how many timers fire at once; at 1 (or less) one at a time, in due order.
	InFlight int
	Logger   *slog.Logger
	// Fresh reports whether the lease can still be trusted, before each fire.
	Fresh func() bool
	// Wake is sent to when a save wrote timers: one may be due sooner than the loop knew.
	Wake <-chan struct{}
	// Failed records a failure for Status; Succeeded clears it.
	Failed    func(error)
	Succeeded func()
}

// Start runs the loop on a goroutine of its own and returns what waits for it to end.
func (l *Loop) Start(shutdown, leased context.Context) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Run(shutdown, leased)
	}()
	return func() { <-done }
}

// Run fires due timers until shutdown ends (the fires in hand finish) or leased ends (they
// are cancelled, and the next holder fires them again).
func (l *Loop) Run(shutdown, leased context.Context) {
	failures, pauses := 0, 0
	for shutdown.Err() == nil && leased.Err() == nil {
		read, paused, err := l.fireDue(shutdown, leased)
		switch {
		case err != nil && leased.Err() == nil:
			failures++
			l.Failed(err)
			l.Logger.Warn("timers could not be read; trying again", "processor", l.Name, "error", err, "failures", failures)
			sleep(shutdown, leased, processor.StoreBackoff(failures))
		case paused:
			// What Fire depends on is down: try again with backoff, using up no attempt.
			failures, pauses = 0, pauses+1
			sleep(shutdown, leased, processor.StoreBackoff(pauses))
		case err == nil:
			failures, pauses = 0, 0
			if read < l.Options.BatchSize {
				l.wait(shutdown, leased)
			}
		}
	}
}

// fireDue fires a batch of the timers that are due, up to InFlight at once, and reports how
// many it read and whether a fire paused the loop (the timers not yet fired then wait).
func (l *Loop) fireDue(shutdown, leased context.Context) (read int, paused bool, err error) {
	ctx, cancel := context.WithTimeout(leased, l.Options.StepTimeout)
	due, err := l.Store.DueTimers(ctx, l.Name, l.Options.BatchSize)
	cancel()
	if err != nil {
		return 0, false, err
	}
	var pause atomic.Bool
	slots := make(chan struct{}, max(1, l.InFlight))
	var firing sync.WaitGroup
	for _, t := range due {
		slots <- struct{}{} // wait for a slot: with one, the previous fire is over
		if pause.Load() || shutdown.Err() != nil || !l.Fresh() {
			break
		}
		firing.Go(func() {
			defer func() { <-slots }()
			if l.fire(leased, t) {
				pause.Store(true)
			}
		})
	}
	firing.Wait()
	return len(due), pause.Load(), nil
}

// fire calls Fire for t and records what came of it: the timer finished (with the fire's own
// changes) or tried again later. It reports whether the fire paused the loop. When the lease
// is lost first, nothing is recorded, and the next holder fires the timer again.
func (l *Loop) fire(leased context.Context, t processor.DueTimer) (paused bool) {
	ctx, cancel := context.WithTimeout(leased, l.Options.StepTimeout)
	ctx, recorded := processor.RecordTimers(ctx)
	err := l.Handler.Fire(ctx, t.Timer)
	cancel()
	if leased.Err() != nil {
		return false
	}
	late := t.Late.Round(time.Millisecond).String()
	switch {
	case err == nil:
		if t.Late > time.Second {
			l.Logger.Warn("timer fired late", "processor", l.Name, "key", t.Key, "late", late)
		}
		l.Succeeded()
		l.persist(leased, func(ctx context.Context) error {
			return l.Store.FinishTimer(ctx, l.Name, t, recorded.Changes()...)
		})
	case pauses(err):
		l.Failed(err)
		l.Logger.Warn("timer paused: what it depends on is down", "processor", l.Name, "key", t.Key, "late", late, "error", err)
		return true
	default:
		attempt := t.Attempts + 1
		after := l.Options.Retry.Delay(attempt)
		l.Failed(err)
		level := slog.LevelWarn
		if attempt >= l.Options.Retry.Attempts {
			level = slog.LevelError // out of attempts: it goes on failing every Retry.Max
		}
		l.Logger.Log(leased, level, "timer failed; trying again", "processor", l.Name, "key", t.Key, "attempt", attempt,
			"late", late, "retry_in", after.Round(time.Millisecond).String(), "error", err)
		l.persist(leased, func(ctx context.Context) error {
			return l.Store.RetryTimer(ctx, l.Name, t, err.Error(), after)
		})
	}
	return false
}

// pauses reports whether err says that what Fire depends on is down, or that it can't fire
// now for a limit of its own: the timer is tried again soon, using up no attempt.
func pauses(err error) bool {
	var pause *processor.PauseError
	var later *processor.LaterError
	return errors.As(err, &pause) || errors.As(err, &later) || errs.Is(err, errs.Unavailable)
}

// persist runs a write to the store until it succeeds or the lease is lost, backing off
// between tries.
func (l *Loop) persist(leased context.Context, write func(ctx context.Context) error) {
	for failures := 1; ; failures++ {
		ctx, cancel := context.WithTimeout(leased, l.Options.StepTimeout)
		err := write(ctx)
		cancel()
		if err == nil || leased.Err() != nil {
			return
		}
		l.Failed(err)
		l.Logger.Warn("could not record what came of a timer; trying again", "processor", l.Name, "error", err, "failures", failures)
		if !sleep(leased, leased, processor.StoreBackoff(failures)) {
			return
		}
	}
}

// wait waits until the next timer is due by the store's clock, a save wrote timers, or
// PollInterval has passed, whichever is first.
func (l *Loop) wait(shutdown, leased context.Context) {
	wait := l.Options.PollInterval
	ctx, cancel := context.WithTimeout(leased, l.Options.StepTimeout)
	until, ok, err := l.Store.UntilNextTimer(ctx, l.Name)
	cancel()
	if err == nil && ok {
		wait = min(wait, max(until, time.Millisecond))
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-l.Wake:
	case <-shutdown.Done():
	case <-leased.Done():
	}
}

// sleep waits for d and reports true, or returns false as soon as a or b ends.
func sleep(a, b context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-a.Done():
		return false
	case <-b.Done():
		return false
	}
}
