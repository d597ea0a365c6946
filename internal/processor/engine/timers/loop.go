// Package timers fires a processor's timers while its lease is held: the loop that package
// engine runs beside the dispatcher of a processor whose Handler is a processor.TimerHandler,
// under the same holding, and stops with it. What it promises (once, in due order, by the
// store's clock, through a takeover) is in package processor's comment, under "Timers".
package timers

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
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
	// LogGrows reports whether events are being written to the log now (nil: never). While
	// they are, the timers give way (givingWay).
	LogGrows func() bool
	Logger   *slog.Logger
	// Fresh reports whether the lease can still be trusted, before each fire.
	Fresh func() bool
	// Wake is sent to when a save wrote timers: one may be due sooner than the loop knew.
	Wake <-chan struct{}
	// Failed records a failure for Status; Succeeded clears it.
	Failed    func(error)
	Succeeded func()

	held held // the timers handed back, which the loop reads past; only Run's goroutine uses it
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
	l.held = held{}
	failures, pauses := 0, 0
	for shutdown.Err() == nil && leased.Err() == nil {
		l.held.release()
		b, err := l.fireDue(shutdown, leased)
		switch {
		case err != nil && leased.Err() == nil:
			failures++
			l.Failed(err)
			l.Logger.Warn("timers could not be read; trying again", "processor", l.Name, "error", err, "failures", failures)
			sleep(shutdown, leased, processor.StoreBackoff(failures))
		case err != nil:
		case b.paused:
			// What Fire depends on is down: try again with backoff, using up no attempt.
			failures, pauses = 0, pauses+1
			sleep(shutdown, leased, processor.StoreBackoff(pauses))
		default:
			failures, pauses = 0, 0
			if !b.more {
				l.wait(shutdown, leased)
			}
		}
	}
}

// batch is what came of firing a batch of due timers.
type batch struct {
	more   bool // the read was cut at its limit: more may be due
	paused bool // a fire paused the loop: the timers not yet fired wait
}

// fireDue fires a batch of the timers that are due, but for those held, up to InFlight at
// once. A timer handed back (Later) is held, and the others of the batch go on: one busy
// recipient domain holds up no other.
func (l *Loop) fireDue(shutdown, leased context.Context) (batch, error) {
	due, more, err := l.readDue(leased)
	if err != nil {
		return batch{}, err
	}
	var (
		mu     sync.Mutex
		paused bool
		slots  = &fireSlots{freed: make(chan struct{}, 1)}
		firing sync.WaitGroup
		done   = &finisher{loop: l, leased: leased}
	)
	for _, t := range due {
		slots.take(l.inFlight) // with one, the previous fire is over
		mu.Lock()
		stop := paused
		mu.Unlock()
		if stop || shutdown.Err() != nil || !l.Fresh() {
			break
		}
		firing.Go(func() {
			began := time.Now()
			out := l.fire(leased, t)
			mu.Lock()
			switch {
			case out.paused:
				paused = true
			case out.handedBack:
				l.held.hold(t, out.ready, l.Options.PollInterval)
			}
			mu.Unlock()
			if l.givingWay() {
				if out.finished != nil {
					done.finish(*out.finished)
					out.finished = nil
				}
				sleep(shutdown, leased, restAfter(time.Since(began)))
			}
			slots.give()
			if out.finished != nil {
				done.finish(*out.finished)
			}
		})
	}
	firing.Wait() // and so every timer that fired is forgotten, or the lease is lost
	return batch{more: more, paused: paused}, nil
}

// inFlight is how many timers may fire at once now.
func (l *Loop) inFlight() int {
	if l.InFlight <= 1 || l.givingWay() {
		return 1
	}
	return l.InFlight
}

// giveWayRest is how many times as long as a fire took the loop rests after it while it gives
// way: the timers then take at most a tenth of one lane's time.
const giveWayRest = 9

// maxGiveWayRest bounds that rest. A fire that took long took it waiting (for a loaded
// database, a slow relay), not working: resting nine times as long would hold the next timers
// back for many seconds past their time, and give the commands nothing.
const maxGiveWayRest = 250 * time.Millisecond

// restAfter is how long the loop rests, while it gives way, after a fire that took took.
func restAfter(took time.Duration) time.Duration {
	return min(giveWayRest*took, maxGiveWayRest)
}

// givingWay reports whether the timers give way to the commands now, because the log grows:
// they fire one at a time and rest after each fire (giveWayRest). Timers have waited for their
// time and can wait a little more; the commands are someone waiting for an answer. Without
// that rest, 10,000 reminders firing one at a time cost payments at concurrency 8 a fifth of
// their pace on two cores (docs/benchmarks.md, Timers).
func (l *Loop) givingWay() bool {
	return l.LogGrows != nil && l.LogGrows()
}

// readDue reads up to BatchSize due timers that are not held, the earliest first, and reports
// whether more may be due.
func (l *Loop) readDue(leased context.Context) (due []processor.DueTimer, more bool, err error) {
	limit := l.Options.BatchSize + len(l.held)
	ctx, cancel := context.WithTimeout(leased, l.Options.StepTimeout)
	read, err := l.Store.DueTimers(ctx, l.Name, limit)
	cancel()
	if err != nil {
		return nil, false, err
	}
	due = slices.DeleteFunc(read, l.held.keeps)
	if len(due) > l.Options.BatchSize {
		due = due[:l.Options.BatchSize]
	}
	return due, len(read) == limit, nil
}

// fired is what came of one fire, for the batch: the timer to forget, with its fire's
// changes, or whether it paused the loop, or was handed back until ready is closed.
type fired struct {
	finished           *processor.FiredTimer
	paused, handedBack bool
	ready              <-chan struct{}
}

// fire calls Fire for t and records what came of it: a failed fire is tried again later; one
// that succeeded is handed back to the batch to forget, with its changes. A timer handed back (Later) is not recorded at all: it uses
// up no attempt and stays due. When the lease is lost first, nothing is recorded, and the next
// holder fires the timer again.
func (l *Loop) fire(leased context.Context, t processor.DueTimer) fired {
	ctx, cancel := context.WithTimeout(leased, l.Options.StepTimeout)
	ctx, recorded := processor.RecordTimers(ctx)
	err := l.Handler.Fire(ctx, t.Timer)
	cancel()
	if leased.Err() != nil {
		return fired{}
	}
	late := t.Late.Round(time.Millisecond).String()
	var handBack *processor.LaterError
	switch {
	case err == nil:
		if t.Late > time.Second {
			l.Logger.Warn("timer fired late", "processor", l.Name, "key", t.Key, "late", late)
		}
		l.Succeeded()
		return fired{finished: &processor.FiredTimer{DueTimer: t, Changes: recorded.Changes()}}
	case errors.As(err, &handBack):
		// Nothing failed: the handler can't take it now, for a limit of its own.
		l.Logger.Debug("timer handed back until its handler can take it", "processor", l.Name, "key", t.Key, "late", late, "reason", err)
		return fired{handedBack: true, ready: handBack.Ready}
	case pauses(err):
		l.Failed(err)
		l.Logger.Warn("timer paused: what it depends on is down", "processor", l.Name, "key", t.Key, "late", late, "error", err)
		return fired{paused: true}
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
	return fired{}
}

// pauses reports whether err says that what Fire depends on is down: the timer is tried
// again with backoff, using up no attempt.
func pauses(err error) bool {
	var pause *processor.PauseError
	return errors.As(err, &pause) || errs.Is(err, errs.Unavailable)
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
// PollInterval has passed, whichever is first. While timers are held, the store's next due is
// one of them: it waits instead until one of those may go again.
func (l *Loop) wait(shutdown, leased context.Context) {
	if len(l.held) > 0 {
		l.held.wait(shutdown, leased, l.Wake, l.Options.PollInterval)
		return
	}
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
