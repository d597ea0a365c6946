package processor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"library/internal/errs"
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
	// fresh reports whether the lease in hand can still be trusted, and cancels the work when
	// it can't; set while holding, used only by the runner's goroutine.
	fresh func() bool

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
	if err == nil {
		r.lastError = ""
	} else {
		r.lastError = publicText(err)
		r.errors++
	}
	r.mu.Unlock()
	if err != nil {
		r.opts.Observer.Failed(r.proc.Name)
	}
}

// publicText is what /status, which anyone may read, shows of an error: for the service's own
// errors, the code and the detail written for clients, without the cause (a driver's text
// names hosts, users and databases); for others, such as the mail server's answer, the text.
func publicText(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return string(e.Code) + ": " + e.Detail
	}
	return err.Error()
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
		r.opts.Observer.LeaseTaken(name)
		r.requeueWaiting.Store(true) // a previous holder may have left requeued events
		r.logger.Info("lease taken: this replica runs the processor", "processor", name)
		err = r.hold(stop, hard, lease)
		r.setHolding(false)
		lease.Release()
		r.opts.Observer.LeaseReleased(name)
		if r.replayWanted.Swap(false) {
			r.logger.Warn("a replay asked for was not started before the lease went; ask the new holder", "processor", name)
		}
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
	r.fresh = func() bool {
		if lease.Fresh() {
			return true
		}
		cancel() // the lease can't be trusted: stop at once, before acting on it
		return false
	}
	defer func() { r.fresh = nil }()
	wakeups := r.store.Subscribe(work)
	poll := time.NewTicker(r.opts.PollInterval)
	defer poll.Stop()

	idler, _ := r.proc.Handler.(Idler)
	if idler != nil {
		defer idler.Idle()
	}
	var pos Position
	loaded, failures, read := false, 0, 0 // read: events read since the last wait
	var busySince time.Time               // when the handler last had work; zero once it was told it is idle
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
			ctx, cancel := r.bounded(work)
			pos, err = r.checkpoints.Load(ctx, r.proc.Name)
			cancel()
			loaded = err == nil
		}
		stepRead := 0
		if err == nil {
			progressed, stepRead, pos, err = r.step(stop, work, pos)
		}
		switch {
		case err != nil && work.Err() == nil:
			// Fenced (another holder moved the checkpoint) or failed (the outcome of a failed
			// write is unknown): either way, read the checkpoint again and go on from there. A
			// replica that lost its lease without knowing yet finds out at its next check.
			failures++
			r.setLastError(err)
			r.logger.Warn("processor failed; trying again", "processor", r.proc.Name, "error", err, "failures", failures)
			loaded = false
			sleep(stop, work, storeBackoff(failures))
			continue
		case err != nil:
			continue // the lease is lost: the loop's head returns
		}
		if failures > 0 || progressed {
			failures = 0
		}
		if progressed {
			busySince = time.Now()
			read += max(0, stepRead)
			if stepRead < 0 || stepRead == r.opts.BatchSize {
				continue // more may be waiting: go on at once
			}
			// A short batch read all there was: what came since has woken this runner.
		}
		var idle <-chan time.Time
		var idleTimer *time.Timer
		if !busySince.IsZero() && idler != nil {
			idleTimer = time.NewTimer(idleAfter - time.Since(busySince))
			idle = idleTimer.C
		}
		var soon <-chan time.Time
		var timer *time.Timer
		if r.behind(work, pos) {
			// Committed events wait above the read horizon, behind a transaction that is still
			// running; its commit wakes nobody, so look again shortly rather than at the poll.
			timer = time.NewTimer(min(behindRetry, r.opts.PollInterval))
			soon = timer.C
		}
		caughtUp := time.Now()
		select {
		case <-stop.Done():
		case <-work.Done():
		case <-wakeups:
		case <-poll.C:
		case <-soon:
		case <-r.wake:
		case <-idle:
			idler.Idle()
			busySince = time.Time{}
		}
		if timer != nil {
			timer.Stop()
		}
		if idleTimer != nil {
			idleTimer.Stop()
		}
		// Appends that keep coming are read together: one read and one checkpoint per
		// interval, not per append. An event that comes on its own is read at once.
		if read > 1 {
			sleep(stop, work, r.opts.ReadInterval-time.Since(caughtUp))
		}
		read = 0
	}
}

// idleAfter is how long a processor waits with nothing to handle before its handler is told
// that it is idle.
const idleAfter = time.Second

// behindRetry is how soon a processor that is behind the log's head, but could read nothing,
// reads again.
const behindRetry = 10 * time.Millisecond

// behind reports whether the log has committed events after pos that a read could not return
// yet. A failure to tell counts as not behind: the poll is the fallback.
func (r *runner) behind(work context.Context, pos Position) bool {
	ctx, cancel := r.bounded(work)
	defer cancel()
	head, err := r.store.Head(ctx)
	return err == nil && pos.Checkpoint.Before(head)
}

// bounded is the context of one call to the log, the checkpoints or the handler: work, cut
// short after StepTimeout, so that a database that stops answering fails the call instead of
// holding the processor.
func (r *runner) bounded(work context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(work, r.opts.StepTimeout)
}

// step does one thing: a requested replay, requeued parked events, or one batch of the log.
// It reports whether it made progress, so that the caller reads on without waiting, and how
// many events it read from the log (-1 when it did something else).
func (r *runner) step(stop, work context.Context, pos Position) (progressed bool, read int, next Position, err error) {
	if r.replayWanted.Swap(false) {
		next, err := r.reset(work, pos)
		if err != nil {
			r.replayWanted.Store(true)
			return false, -1, pos, err
		}
		r.logger.Info("replaying from the start of the log", "processor", r.proc.Name, "generation", next.Generation)
		return true, -1, next, nil
	}
	if r.proc.Handler != nil && r.requeueWaiting.Swap(false) {
		more, err := r.retryParked(stop, work)
		if err != nil || more {
			r.requeueWaiting.Store(true)
		}
		if errors.Is(err, errStopping) {
			err = nil // the caller sees stop and returns
		}
		if err != nil || more {
			return more, -1, pos, err
		}
	}
	readCtx, cancel := r.bounded(work)
	events, err := r.store.ReadAll(readCtx, pos.Checkpoint, r.opts.BatchSize)
	cancel()
	if err != nil || len(events) == 0 {
		return false, len(events), pos, err
	}
	before := r.errorCount()
	next, err = r.handleBatch(stop, work, pos, events)
	if err == nil && r.errorCount() == before {
		r.setLastError(nil) // a clean batch: whatever went wrong before is over
	}
	return next != pos, len(events), next, err
}

func (r *runner) reset(work context.Context, pos Position) (Position, error) {
	ctx, cancel := r.bounded(work)
	defer cancel()
	next := Position{Generation: pos.Generation + 1}
	if r.proc.ViewModel != nil {
		return next, r.proc.ViewModel.Reset(ctx, pos)
	}
	return next, r.checkpoints.Save(ctx, r.proc.Name, pos, next)
}

// handleBatch handles events and moves the checkpoint past the ones it handled.
func (r *runner) handleBatch(stop, work context.Context, pos Position, events []eventstore.Event) (Position, error) {
	if r.proc.ViewModel != nil {
		if !r.fresh() {
			return pos, errLeaseLost
		}
		to := Position{Generation: pos.Generation, Checkpoint: events[len(events)-1].Checkpoint()}
		ctx, cancel := r.bounded(work)
		defer cancel()
		if err := r.proc.ViewModel.Apply(ctx, pos, to, events); err != nil {
			return pos, err
		}
		r.opts.Observer.EventsHandled(r.proc.Name, len(events))
		return to, nil
	}
	// The checkpoint moves during the batch too, at most once per ReadInterval, so that a
	// holder that dies mid-batch leaves the next one that much to send again, not the batch.
	saved, done, handled := pos, pos, 0
	lastSave := time.Now()
	var handleErr error
	for _, e := range events {
		if _, handleErr = r.handleEvent(stop, work, e); handleErr != nil {
			break
		}
		done.Checkpoint = e.Checkpoint()
		handled++
		if time.Since(lastSave) >= r.opts.ReadInterval && work.Err() == nil {
			if err := r.saveHandled(work, saved, done, handled); err != nil {
				return saved, err
			}
			saved, handled, lastSave = done, 0, time.Now()
		}
	}
	if done != saved {
		if err := r.saveHandled(work, saved, done, handled); err != nil {
			return saved, err
		}
	}
	if errors.Is(handleErr, errStopping) {
		handleErr = nil // the caller sees stop and returns
	}
	return done, handleErr
}

// saveHandled moves the checkpoint from saved to done, past handled more events.
func (r *runner) saveHandled(work context.Context, saved, done Position, handled int) error {
	saveCtx, cancel := r.bounded(work)
	defer cancel()
	if work.Err() != nil {
		// The lease went mid-batch. Saving what was handled is still right if nobody has
		// moved the checkpoint meanwhile, and fenced if somebody has; it saves the next
		// holder from sending those emails again.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(work), time.Second)
		defer cancel()
		saveCtx = ctx
	}
	if err := r.checkpoints.Save(saveCtx, r.proc.Name, saved, done); err != nil {
		return err
	}
	r.opts.Observer.EventsHandled(r.proc.Name, handled)
	return nil
}

// handleEvent hands one event to the handler, retrying with backoff, and parks it when the
// handler says so or the attempts run out. It reports whether the event was parked.
func (r *runner) handleEvent(stop, work context.Context, e eventstore.Event) (parked bool, err error) {
	for tries, attempt := 1, 1; ; tries++ {
		if !r.fresh() {
			return false, errLeaseLost
		}
		ctx, cancel := r.bounded(work)
		err := r.proc.Handler.Handle(ctx, e)
		cancel()
		if err == nil {
			return false, nil
		}
		if work.Err() != nil {
			return false, work.Err()
		}
		if parkNow(err) || attempt >= r.opts.Retry.Attempts {
			return true, r.park(work, e, err, attempt)
		}
		delay := r.opts.Retry.delay(attempt)
		if errs.Is(err, errs.Unavailable) {
			// The database being unavailable is not the event's fault: it waits, as any
			// reader of the store would, without using up the event's attempts, and is
			// never parked for it.
			delay = storeBackoff(tries)
		} else {
			attempt++
		}
		r.setLastError(err)
		r.logger.Warn("event not handled; retrying", "processor", r.proc.Name, "stream", e.StreamID,
			"version", e.Version, "position", e.Position, "attempt", attempt-1, "retry_in", delay.String(), "error", err)
		if !sleep(stop, work, delay) {
			if work.Err() != nil {
				return false, work.Err()
			}
			return false, errStopping
		}
	}
}

// ParkListener is implemented by handlers that want to know when one of their events has been
// parked, whether the handler asked for it or its attempts ran out: the outbox counts the
// emails it could not send.
type ParkListener interface {
	Parked(e eventstore.Event)
}

func (r *runner) park(ctx context.Context, e eventstore.Event, reason error, attempts int) error {
	r.setLastError(reason)
	r.logger.Warn("event parked", "processor", r.proc.Name, "stream", e.StreamID, "version", e.Version,
		"position", e.Position, "attempts", attempts, "reason", reason)
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	if err := r.checkpoints.Park(ctx, r.proc.Name, Parked{Event: e, Reason: reason.Error(), Attempts: attempts}); err != nil {
		return err
	}
	if l, ok := r.proc.Handler.(ParkListener); ok {
		l.Parked(e)
	}
	return nil
}

// retryParked tries one page of the events that retry-parked requeued, oldest first, and
// reports whether there may be more; the log is read between pages, so new events don't wait
// for all of them. One that fails again is parked again.
func (r *runner) retryParked(stop, work context.Context) (more bool, err error) {
	ctx, cancel := r.bounded(work)
	requeued, err := r.checkpoints.Requeued(ctx, r.proc.Name, r.opts.BatchSize)
	cancel()
	if err != nil {
		return false, err
	}
	for _, p := range requeued {
		parked, err := r.handleEvent(stop, work, p.Event)
		if err != nil {
			return false, err
		}
		if parked {
			continue
		}
		ctx, cancel := r.bounded(work)
		err = r.checkpoints.Unpark(ctx, r.proc.Name, p.Event.Position)
		cancel()
		if err != nil {
			return false, err
		}
		r.opts.Observer.EventsHandled(r.proc.Name, 1)
		r.logger.Info("parked event handled", "processor", r.proc.Name, "stream", p.Event.StreamID,
			"version", p.Event.Version, "position", p.Event.Position)
	}
	return len(requeued) == r.opts.BatchSize, nil
}

// sleep waits for d and reports true, or returns false as soon as stop or work ends.
func sleep(stop, work context.Context, d time.Duration) bool {
	if d <= 0 {
		return stop.Err() == nil && work.Err() == nil
	}
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
