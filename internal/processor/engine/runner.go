package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"library/internal/eventstore"
	"library/internal/processor"
)

// errLeaseLost ends a holding whose lease was lost, or can't be trusted any more.
var errLeaseLost = errors.New("processor: lease lost")

// runner runs one processor in this replica: it waits for the lease, then reads and handles
// the log until the lease is lost or the replica stops.
type runner struct {
	proc        processor.Processor
	build       processor.Build // a view's build, which it runs under the build's name
	store       eventstore.Store
	checkpoints processor.Checkpoints
	leases      processor.Leases
	opts        processor.Options
	logger      *slog.Logger
	tracer      trace.Tracer

	wake           chan struct{} // an admin request is waiting
	replayWanted   atomic.Bool
	requeueWaiting atomic.Bool
	inFlight       atomic.Int64 // events being handled now
	// catchingUp is set while the view's build it runs is building: its checkpoint then moves
	// past the events it does not read at every read, not every ten seconds, so that it reaches
	// the answering build's, and takes over, as soon as it has read what that one has.
	catchingUp atomic.Bool
	// readFull is set while the view's last read found as many events as it asked for: more may
	// be waiting, and its build has certainly not caught up, so nobody need count what is left.
	readFull atomic.Bool
	// bulk is set while the view's build it runs writes in bulk (processor.BulkWriter), until
	// what it put off is whole again.
	bulk atomic.Bool

	mu        sync.Mutex
	holding   bool
	lastError string
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

// failed records a failure: /status shows it until the processor next succeeds.
func (r *runner) failed(err error) { r.record(processor.PublicText(err)) }

// failedAt records the failure of the event at position.
func (r *runner) failedAt(position int64, err error) {
	r.record(fmt.Sprintf("position %d: %s", position, processor.PublicText(err)))
}

func (r *runner) record(text string) {
	r.mu.Lock()
	r.lastError = text
	r.mu.Unlock()
	r.opts.Observer.Failed(r.proc.Name)
}

// succeeded clears the last failure.
func (r *runner) succeeded() {
	r.mu.Lock()
	r.lastError = ""
	r.mu.Unlock()
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
// until shutdown ends. abort ends the work in hand too.
func (r *runner) run(shutdown, abort context.Context) {
	name := r.proc.Name
	for shutdown.Err() == nil {
		lease, err := r.leases.Acquire(shutdown, name)
		if err != nil {
			return // shutdown ended
		}
		r.setHolding(true)
		r.opts.Observer.LeaseTaken(name)
		r.requeueWaiting.Store(true) // a previous holder may have left requeued events
		r.logger.Info("lease taken: this replica runs the processor", "processor", name)
		err = r.hold(shutdown, abort, lease)
		r.setHolding(false)
		r.succeeded() // a standby runs nothing: what went wrong while it held the lease is in the logs
		lease.Release()
		r.opts.Observer.LeaseReleased(name)
		if r.replayWanted.Swap(false) {
			r.logger.Warn("a replay asked for was not started before the lease went; ask the new holder", "processor", name)
		}
		if shutdown.Err() != nil {
			r.logger.Info("lease released: stopping", "processor", name)
			return
		}
		r.logger.Warn("lease given up; a standby may take it", "processor", name, "error", err,
			"retake_in", r.opts.RetakeDelay.String())
		if !sleep(shutdown, shutdown, r.opts.RetakeDelay) {
			return
		}
	}
}

// holding is one stretch of holding a processor's lease. Its contexts say what ends it:
// shutdown ends when the replica stops (finish what is in hand, start nothing new); leased ends
// when the lease is lost, can't be trusted, or the work in hand must be abandoned.
type holding struct {
	*runner
	shutdown context.Context
	leased   context.Context
	// fresh reports whether the lease can still be trusted, and ends leased when it can't. It
	// is safe for concurrent use.
	fresh   func() bool
	wakeups <-chan struct{}
	poll    *time.Ticker
	// timersWake wakes the timer loop when a save wrote timers.
	timersWake chan struct{}
	// behindStreak counts the reads in a row that found the log ahead but nothing to read.
	behindStreak int
	// passedSavedAt is when a view model's checkpoint was last moved (see applyNext).
	passedSavedAt time.Time
}

// hold runs the processor while the lease is held. It returns nil when shutdown ends, or why
// it stopped holding.
func (r *runner) hold(shutdown, abort context.Context, lease processor.Lease) error {
	leased, cancel := context.WithCancel(abort)
	defer cancel()
	go func() {
		select {
		case <-lease.Lost():
			cancel()
		case <-leased.Done():
		}
	}()
	h := &holding{
		runner:   r,
		shutdown: shutdown,
		leased:   leased,
		fresh: func() bool {
			if lease.Fresh() {
				return true
			}
			cancel() // the lease can't be trusted: stop at once, before acting on it
			return false
		},
		wakeups:    r.store.Subscribe(leased, r.proc.Types...),
		poll:       time.NewTicker(r.opts.PollInterval),
		timersWake: make(chan struct{}, 1),
	}
	defer h.poll.Stop()
	if r.proc.View != nil {
		return h.viewModel()
	}
	defer h.startTimers()() // and wait for the timer loop before the lease goes
	return newDispatcher(h).run()
}

// ended reports whether the holding is over, and why: nil for a shutdown.
func (h *holding) ended() (bool, error) {
	switch {
	case h.shutdown.Err() != nil:
		return true, nil
	case h.leased.Err() != nil:
		return true, errLeaseLost
	}
	return false, nil
}

// bounded is the context of one call to the log, the checkpoints or the handler: leased, cut
// short after StepTimeout, so that a database that stops answering fails the call instead of
// holding the processor.
func (h *holding) bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(h.leased, h.opts.StepTimeout)
}

// load reads the processor's checkpoint.
func (h *holding) load() (processor.Position, error) {
	ctx, cancel := h.bounded()
	defer cancel()
	return h.checkpoints.Load(ctx, h.proc.Name)
}

// behindRetry is how soon a processor that is behind the log's head, but could read nothing,
// reads again: the append that holds the horizon back usually commits within milliseconds.
// While it does not (a transaction left open somewhere in the cluster), the wait doubles each
// time, up to PollInterval, so that a stalled horizon does not cost a read every 10ms.
const behindRetry = 10 * time.Millisecond

// behindWait is how long to wait before reading again: 0 when the log has nothing after c that
// a read could not return (the caller waits for a wake-up), or a wait that grows while it stays
// that way.
func (h *holding) behindWait(c eventstore.Checkpoint) time.Duration {
	if !h.behind(c) {
		h.behindStreak = 0
		return 0
	}
	h.behindStreak++
	wait := behindRetry
	for i := 1; i < h.behindStreak && wait < h.opts.PollInterval; i++ {
		wait *= 2
	}
	return min(wait, h.opts.PollInterval)
}

// behind reports whether the log has committed events after c that a read could not return
// yet. A failure to tell counts as not behind: the poll is the fallback.
func (h *holding) behind(c eventstore.Checkpoint) bool {
	ctx, cancel := h.bounded()
	defer cancel()
	head, err := h.store.Head(ctx)
	return err == nil && c.Before(head)
}

// storeFailed records a failure of the log or the checkpoints and waits before the next try.
func (h *holding) storeFailed(err error, failures int) {
	h.failed(err)
	h.logger.Warn("processor failed; trying again", "processor", h.proc.Name, "error", err, "failures", failures)
	sleep(h.shutdown, h.leased, processor.StoreBackoff(failures))
}

// idleAfter is how long a processor waits with nothing to handle before its handler is told
// that it is idle.
const idleAfter = time.Second

// sleep waits for d and reports true, or returns false as soon as a or b ends.
func sleep(a, b context.Context, d time.Duration) bool {
	if d <= 0 {
		return a.Err() == nil && b.Err() == nil
	}
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
