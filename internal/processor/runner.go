package processor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"library/internal/eventstore"
)

var (
	// errStopping interrupts an event's retries when the replica is shutting down: the event is
	// left for the next holder.
	errStopping  = errors.New("processor: stopping")
	errLeaseLost = errors.New("processor: lease lost")
)

// runner runs one processor in this replica: it waits for the lease, then reads and handles
// the log until the lease is lost or the replica stops.
type runner struct {
	proc        Processor
	store       eventstore.Store
	checkpoints Checkpoints
	leases      Leases
	opts        Options
	logger      *slog.Logger

	wake           chan struct{} // an admin request is waiting
	replayWanted   atomic.Bool
	requeueWaiting atomic.Bool

	mu        sync.Mutex
	holding   bool
	lastError string
	errors    int // failures so far, to tell a clean batch from one that retried or parked
}

func (r *runner) holdsLease() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holding
}

func (r *runner) setHolding(holding bool) {
	r.mu.Lock()
	r.holding = holding
	r.mu.Unlock()
}

func (r *runner) setLastError(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.lastError = ""
	} else {
		r.lastError = err.Error()
		r.errors++
	}
}

func (r *runner) errorCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errors
}

func (r *runner) lastErr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastError
}

func (r *runner) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// run takes the lease, holds it while handling events, and takes it again when it is lost,
// until stop ends. hard ends the batch in hand too.
func (r *runner) run(stop, hard context.Context) {
	name := r.proc.Name
	for stop.Err() == nil {
		lease, err := r.leases.Acquire(stop, name)
		if err != nil {
			return // stop ended
		}
		r.setHolding(true)
		r.requeueWaiting.Store(true) // a previous holder may have left requeued events
		r.logger.Info("lease taken: this replica runs the processor", "processor", name)
		err = r.hold(stop, hard, lease)
		r.setHolding(false)
		lease.Release()
		if stop.Err() != nil {
			r.logger.Info("lease released: stopping", "processor", name)
			return
		}
		r.setLastError(err)
		r.logger.Warn("lease given up; a standby may take it", "processor", name, "error", err,
			"retake_in", r.opts.RetakeDelay.String())
		if !sleep(stop, stop, r.opts.RetakeDelay) {
			return
		}
	}
}

// hold handles the log while the lease is held. It returns nil when stop ends (after the batch
// in hand), or why it stopped holding.
func (r *runner) hold(stop, hard context.Context, lease Lease) error {
	work, cancel := context.WithCancel(hard)
	defer cancel()
	go func() {
		select {
		case <-lease.Lost():
			cancel()
		case <-work.Done():
		}
	}()
	wakeups := r.store.Subscribe(work)
	poll := time.NewTicker(r.opts.PollInterval)
	defer poll.Stop()

	var pos Position
	loaded, failures := false, 0
	for {
		if stop.Err() != nil {
			return nil
		}
		if work.Err() != nil {
			return errLeaseLost
		}
		progressed := false
		var err error
		if !loaded {
			pos, err = r.checkpoints.Load(work, r.proc.Name)
			loaded = err == nil
		}
		if err == nil {
			progressed, pos, err = r.step(stop, work, pos)
		}
		switch {
		case errors.Is(err, ErrFenced):
			return err
		case err != nil && work.Err() == nil:
			failures++
			r.setLastError(err)
			r.logger.Warn("processor failed; trying again", "processor", r.proc.Name, "error", err, "failures", failures)
			loaded = false // the outcome of a failed write is unknown: read the checkpoint again
			sleep(stop, work, storeBackoff(failures))
			continue
		case err != nil:
			continue // the lease is lost: the loop's head returns
		}
		if failures > 0 || progressed {
			failures = 0
		}
		if progressed {
			continue
		}
		select {
		case <-stop.Done():
		case <-work.Done():
		case <-wakeups:
		case <-poll.C:
		case <-r.wake:
		}
	}
}

// step does one thing: a requested replay, requeued parked events, or one batch of the log.
// It reports whether it made progress, so that the caller reads on without waiting.
func (r *runner) step(stop, work context.Context, pos Position) (bool, Position, error) {
	if r.replayWanted.Swap(false) {
		next, err := r.reset(work, pos)
		if err != nil {
			r.replayWanted.Store(true)
			return false, pos, err
		}
		r.logger.Info("replaying from the start of the log", "processor", r.proc.Name, "generation", next.Generation)
		return true, next, nil
	}
	if r.proc.Handler != nil && r.requeueWaiting.Swap(false) {
		if err := r.retryParked(stop, work); err != nil {
			r.requeueWaiting.Store(true)
			if errors.Is(err, errStopping) {
				err = nil // the caller sees stop and returns
			}
			return false, pos, err
		}
	}
	events, err := r.store.ReadAll(work, pos.Checkpoint, r.opts.BatchSize)
	if err != nil || len(events) == 0 {
		return false, pos, err
	}
	before := r.errorCount()
	next, err := r.handleBatch(stop, work, pos, events)
	if err == nil && r.errorCount() == before {
		r.setLastError(nil) // a clean batch: whatever went wrong before is over
	}
	return next != pos, next, err
}

func (r *runner) reset(work context.Context, pos Position) (Position, error) {
	next := Position{Generation: pos.Generation + 1}
	if r.proc.ViewModel != nil {
		return next, r.proc.ViewModel.Reset(work, pos)
	}
	return next, r.checkpoints.Save(work, r.proc.Name, pos, next)
}

// handleBatch handles events and moves the checkpoint past the ones it handled.
func (r *runner) handleBatch(stop, work context.Context, pos Position, events []eventstore.Event) (Position, error) {
	if r.proc.ViewModel != nil {
		to := Position{Generation: pos.Generation, Checkpoint: events[len(events)-1].Checkpoint()}
		if err := r.proc.ViewModel.Apply(work, pos, to, events); err != nil {
			return pos, err
		}
		return to, nil
	}
	if ender, ok := r.proc.Handler.(BatchEnder); ok {
		defer ender.EndBatch()
	}
	done := pos
	var handleErr error
	for _, e := range events {
		if _, handleErr = r.handleEvent(stop, work, e); handleErr != nil {
			break
		}
		done.Checkpoint = e.Checkpoint()
	}
	if done != pos {
		if err := r.checkpoints.Save(work, r.proc.Name, pos, done); err != nil {
			return pos, err
		}
	}
	if errors.Is(handleErr, errStopping) {
		handleErr = nil // the caller sees stop and returns
	}
	return done, handleErr
}

// handleEvent hands one event to the handler, retrying with backoff, and parks it when the
// handler says so or the attempts run out. It reports whether the event was parked.
func (r *runner) handleEvent(stop, work context.Context, e eventstore.Event) (parked bool, err error) {
	for attempt := 1; ; attempt++ {
		err := r.proc.Handler.Handle(work, e)
		if err == nil {
			return false, nil
		}
		if work.Err() != nil {
			return false, work.Err()
		}
		if parkNow(err) || attempt >= r.opts.Retry.Attempts {
			return true, r.park(work, e, err, attempt)
		}
		r.setLastError(err)
		delay := r.opts.Retry.delay(attempt)
		r.logger.Warn("event not handled; retrying", "processor", r.proc.Name, "stream", e.StreamID,
			"version", e.Version, "position", e.Position, "attempt", attempt, "retry_in", delay.String(), "error", err)
		if !sleep(stop, work, delay) {
			if work.Err() != nil {
				return false, work.Err()
			}
			return false, errStopping
		}
	}
}

func (r *runner) park(ctx context.Context, e eventstore.Event, reason error, attempts int) error {
	r.setLastError(reason)
	r.logger.Warn("event parked", "processor", r.proc.Name, "stream", e.StreamID, "version", e.Version,
		"position", e.Position, "attempts", attempts, "reason", reason)
	return r.checkpoints.Park(ctx, r.proc.Name, Parked{Event: e, Reason: reason.Error(), Attempts: attempts})
}

// retryParked tries the events that retry-parked requeued, oldest first. One that fails
// again is parked again.
func (r *runner) retryParked(stop, work context.Context) error {
	if ender, ok := r.proc.Handler.(BatchEnder); ok {
		defer ender.EndBatch()
	}
	for {
		requeued, err := r.checkpoints.Requeued(work, r.proc.Name, r.opts.BatchSize)
		if err != nil || len(requeued) == 0 {
			return err
		}
		for _, p := range requeued {
			parked, err := r.handleEvent(stop, work, p.Event)
			if err != nil {
				return err
			}
			if !parked {
				if err := r.checkpoints.Unpark(work, r.proc.Name, p.Event.Position); err != nil {
					return err
				}
				r.logger.Info("parked event handled", "processor", r.proc.Name, "stream", p.Event.StreamID,
					"version", p.Event.Version, "position", p.Event.Position)
			}
		}
	}
}

// sleep waits for d and reports true, or returns false as soon as stop or work ends.
func sleep(stop, work context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop.Done():
		return false
	case <-work.Done():
		return false
	}
}
