package processor

import (
	"math/rand/v2"
	"time"
)

// Options tune how processors run. The zero value takes the defaults.
type Options struct {
	// BatchSize is how many events a processor reads at a time; a handler processor reads
	// ahead of its checkpoint by at most twice this (or twice InFlight), but for
	// CatchUpBatchSize. Default 100.
	BatchSize int
	// CatchUpBatchSize is how many events a processor reads at a time while it is behind:
	// after a read that found as many events as it asked for, until a read finds fewer. One
	// transaction applies them to a view model, as it does a batch of BatchSize; a view whose
	// build starts from the log's beginning, or that an import left behind, catches up in
	// fewer, larger transactions. An outbox or a saga reads ahead of its checkpoint by up to
	// twice this while behind, so that one that passes most of what it reads (the adoption
	// saga after an import) reads it in fewer, larger reads; it starts no more events at once
	// for it. Default 5,000; never less than BatchSize.
	CatchUpBatchSize int
	// PollInterval is how often an idle processor reads the log without being woken, in case a
	// notification was lost. Default 1s.
	PollInterval time.Duration
	// ReadInterval is the least time between a processor catching up, after reading more than
	// one event, and its next read of the log: appends that keep coming are read together, in
	// one batch, instead of one read and one checkpoint write each. An event that comes on its
	// own is read at once. It is the most it adds to the delay of an event under load. Default
	// 20ms; negative: read at every wake-up.
	ReadInterval time.Duration
	// Retry is the schedule on which an outbox or saga tries a deferred event again before
	// parking it.
	Retry Backoff
	// RetakeDelay is how long a replica that lost a lease waits before it tries to take it
	// again, so that a healthy standby gets it first. Default 1s.
	RetakeDelay time.Duration
	// StepTimeout bounds each call a runner makes to the log, the checkpoints or a handler
	// (one read, one batch applied, one checkpoint saved, one attempt at an event): a database
	// that stops answering, or a query stuck behind a lock, fails the call instead of holding
	// the processor forever, and the call is tried again like any other failure. The lease
	// does not bound them: its own connection may be fine while another is stuck. Default
	// DefaultStepTimeout.
	StepTimeout time.Duration
	// DropAfter is how long a view model's build that no longer answers is kept, at least,
	// before its tables are dropped, and how long a replica that said which build it reads,
	// and then fell silent, still counts as reading it. Replicas say it every quarter of
	// DropAfter. Default 1 minute.
	DropAfter time.Duration
	// Observer is told what the runners do, for metrics. Default: nobody.
	Observer Observer
}

// Observer is told what this replica's runners do. Its methods are called on the runners'
// goroutines, so they must be quick and safe for concurrent use. What the shared store knows
// (checkpoints, lag, parked events) is not reported here: the engine's Group.Status reads it.
type Observer interface {
	// LeaseTaken: this replica took the processor's lease and runs it now.
	LeaseTaken(processor string)
	// LeaseReleased: this replica no longer runs the processor (it stopped, or lost the lease).
	LeaseReleased(processor string)
	// EventsHandled: the processor is done with n more events (handled, skipped or parked),
	// or handled n events that retry-parked requeued.
	EventsHandled(processor string, n int)
	// Failed: a batch, an event's attempt or the lease failed; /status shows the last one.
	Failed(processor string)
}

type noObserver struct{}

func (noObserver) LeaseTaken(string)         {}
func (noObserver) LeaseReleased(string)      {}
func (noObserver) EventsHandled(string, int) {}
func (noObserver) Failed(string)             {}

// Backoff is a retry schedule: Attempts tries in all, waiting First, then twice as long each
// time, at most Max, with some jitter so that replicas don't retry in step.
type Backoff struct {
	Attempts int
	First    time.Duration
	Max      time.Duration
}

// DefaultStepTimeout is the default Options.StepTimeout: far longer than any step takes (a
// batch of 100 events, or an email with the SMTP timeout of 10s), far shorter than forever.
const DefaultStepTimeout = 30 * time.Second

// DefaultRetry tries an event six times over about a minute (waits of about 2, 4, 8, 16 and
// 30 s) before parking it, so an SMTP server that is down for half a minute costs no parking.
var DefaultRetry = Backoff{Attempts: 6, First: 2 * time.Second, Max: 30 * time.Second}

// WithDefaults returns o with every unset field at its default.
func (o Options) WithDefaults() Options {
	if o.BatchSize <= 0 {
		o.BatchSize = 100
	}
	if o.CatchUpBatchSize <= 0 {
		o.CatchUpBatchSize = 5000
	}
	o.CatchUpBatchSize = max(o.CatchUpBatchSize, o.BatchSize)
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.RetakeDelay <= 0 {
		o.RetakeDelay = time.Second
	}
	if o.StepTimeout <= 0 {
		o.StepTimeout = DefaultStepTimeout
	}
	if o.DropAfter <= 0 {
		o.DropAfter = time.Minute
	}
	if o.ReadInterval == 0 {
		o.ReadInterval = 20 * time.Millisecond
	}
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	if o.Retry.Attempts <= 0 {
		o.Retry.Attempts = DefaultRetry.Attempts
	}
	if o.Retry.First <= 0 {
		o.Retry.First = DefaultRetry.First
	}
	if o.Retry.Max < o.Retry.First {
		o.Retry.Max = max(o.Retry.First, DefaultRetry.Max)
	}
	return o
}

// Delay is the wait after the given failed attempt (1, 2, ...): First doubled per attempt,
// capped at Max, less up to a fifth at random.
func (b Backoff) Delay(attempt int) time.Duration {
	d := b.First
	for i := 1; i < attempt && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	return d - time.Duration(rand.Int64N(int64(d)/5+1)) //nolint:gosec // jitter, not a secret
}

// StoreBackoff is the wait before trying again after the store failed, or while what a
// handler depends on is down: short at first, since most failures are a blip, and at most a
// few seconds.
func StoreBackoff(failures int) time.Duration {
	d := 100 * time.Millisecond
	for i := 1; i < failures && d < 5*time.Second; i++ {
		d *= 2
	}
	return min(d, 5*time.Second)
}
