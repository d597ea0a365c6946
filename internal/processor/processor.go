package processor

import (
	"context"
	"fmt"
	"time"

	"library/internal/errs"
	"library/internal/eventstore"
)

// Kind is what a processor does with the events it reads.
type Kind string

// The kinds of processor.
const (
	// KindViewModel writes a read model, atomically with its checkpoint.
	KindViewModel Kind = "viewModel"
	// KindOutbox causes an effect outside the service, such as an email. It can't be replayed:
	// sent mail can't be unsent.
	KindOutbox Kind = "outbox"
	// KindSaga runs commands in reaction to events. Its commands are idempotent, so it can be
	// replayed from the start.
	KindSaga Kind = "saga"
)

// Processor is one piece of background work. Its Name keys its lease, its checkpoint and its
// parked events: never rename a processor that has run. A view model's Name is the view's: each
// of its builds runs under a name of its own (Build.Name). Names hold no "@".
type Processor struct {
	Name string
	Kind Kind
	// View is set for KindViewModel.
	View View
	// Handler is set for KindOutbox and KindSaga.
	Handler Handler
	// InFlight is how many events the Handler may handle at once (default 1). Above 1, events
	// are handled in no particular order, and the Handler must be safe for concurrent use.
	InFlight int
	// Types are the event types the processor reads; empty: every type. It reads no other, is
	// woken by no other's append, and counts no other in its lag. A type left out is never
	// handled: list every type the Handler or View acts on.
	Types []string
	// DataOnly is for a View whose code reads nothing of an event's metadata but its schema
	// version: its reads leave the rest out where the log can (eventstore.DataReader), which
	// then need not extract it, nor send it, for every event a build reads.
	DataOnly bool
	// SchemaBelow, above 0, is for a Handler that has something to do with the events of its
	// Types written at a schema version below it alone (an upgrade of the log's older events,
	// as package adoption's): it reads those alone where the log can pass over the newer
	// (eventstore.OlderReader), which it then neither reads nor decodes. It needs Types.
	SchemaBelow int
}

// FiresTimers reports whether the processor's Handler fires timers: only then may it schedule
// them (see TimerHandler).
func (p Processor) FiresTimers() bool {
	_, ok := p.Handler.(TimerHandler)
	return ok
}

// View is a view model: a read model kept up to date from the log, in builds (see Build), each
// in tables of its own. A replay of a view, and a new version of its code, is a new build beside
// the one that answers, which takes over once it has caught up.
type View interface {
	// Versions are the version of the view's code, which it builds, and the versions its reads
	// can read.
	Versions() Versions
	// Build returns the read model of build b, making its tables, empty, first when they are
	// not there yet; ErrBuildGone when b was dropped. Only the holder of b's lease calls it.
	Build(ctx context.Context, b Build) (ViewModel, error)
}

// ViewModel is one build of a view: its tables. It owns the write of its build's checkpoint, so
// that its rows and its checkpoint move together.
type ViewModel interface {
	// Apply applies events to the read model and moves the checkpoint from from to to, in one
	// transaction. When the checkpoint is no longer at from, it writes nothing and returns
	// ErrFenced; when the build was dropped, ErrBuildGone.
	Apply(ctx context.Context, from, to Position, events []eventstore.Event) error
}

// A Preparer is a ViewModel that does what of Apply needs no transaction (decoding the events,
// most often) apart, in Prepare: the engine prepares a batch as soon as it is read, and a batch
// read ahead beside the transaction of the batch before it, so that a build far behind the log
// decodes one batch while the database writes another. What Prepare makes is applied in place
// of Apply(ctx, from, to, events), and as it would be: its error is Apply's.
type Preparer interface {
	ViewModel
	Prepare(events []eventstore.Event) (Prepared, error)
}

// Prepared is a batch of events a Preparer prepared, to apply as ViewModel.Apply applies them.
type Prepared interface {
	Apply(ctx context.Context, from, to Position) error
}

// Handler handles the events of an outbox or a saga, one event per call. It ignores (returns
// nil for) events it has nothing to do with.
//
// What it returns sorts the event:
//   - nil: done.
//   - an error made by Park: parked at once, with the error as its reason.
//   - an error made by Pause, or one with the code errs.Unavailable: what the handler depends
//     on is down (the mail relay, the database), not this event. The processor stops starting
//     events, tries this one again with backoff until it gets through, and then goes on; the
//     event uses up none of its attempts.
//   - an error made by Later: not this event's failure, nor a dependency's. The handler can't
//     take the event now, for a limit of its own (the outbox's emails in flight to one mail
//     domain), and says when it may: the event leaves its slot at once, uses up no attempt,
//     and is started again, ahead of events not yet started, once the Ready channel it gave is
//     closed. Meanwhile the checkpoint stays below it, as for any event in hand.
//   - an error made by Wait: nothing failed, but the event can't be done until something the
//     processor is not told of changes (a member gives an email address). It is deferred for
//     the time the handler gave, using up no attempt, and tried again then; the timers it
//     scheduled are kept, as a handled event's are. The handler decides how long it waits in
//     all, and parks the event when that is over.
//   - any other error: this event failed for now. It is deferred: kept, with its next attempt
//     time, where every replica sees it, and tried again off the line (later events go on
//     meanwhile) on the Options.Retry schedule, then parked when its attempts run out.
//
// Handle may be called again for an event it has already handled (after a crash or a lost
// lease), so what it does must be safe to repeat or carry a stable id that the receiver can
// deduplicate on. Attempt(ctx) tells which attempt a call is.
type Handler interface {
	Handle(ctx context.Context, e eventstore.Event) error
}

// Selector is implemented by handlers that have nothing to do with many of the events of their
// types, and can tell which from the event alone: Selects reports, cheaply and without I/O,
// whether Handle would do anything with e. An event it does not select is passed over as if
// handled with nothing to do, never handed to Handle: no worker, deadline, span or slot in
// flight is spent on it, and the checkpoint moves past it as past a handled event. Selects is
// called on the processor's own goroutine, once for each event read from the log.
type Selector interface {
	Selects(e eventstore.Event) bool
}

// Idler is implemented by handlers that keep something open from one event to the next, such
// as SMTP connections. Idle is called once the processor has had nothing to handle for a
// second, and when it stops running here; the handler closes what it keeps open.
type Idler interface {
	Idle()
}

// ParkListener is implemented by handlers that want to know when one of their events has been
// parked, whether the handler asked for it or its attempts ran out: the outbox counts the
// emails it could not send.
type ParkListener interface {
	Parked(e eventstore.Event)
}

// DeferListener is implemented by handlers that want to know when one of their events has been
// deferred to a later attempt.
type DeferListener interface {
	Deferred(e eventstore.Event)
}

// ParkError is a failure that retrying can't fix, such as a loan email to a member who has no
// email address. The event is parked at once with Reason, which the admin view shows; /status
// shows Public (see PublicTexter), which must name no member, address or host.
type ParkError struct {
	Reason string
	Public string
}

func (e *ParkError) Error() string { return e.Reason }

// PublicText implements PublicTexter.
func (e *ParkError) PublicText() string {
	if e.Public == "" {
		return "parked"
	}
	return "parked: " + e.Public
}

// Park returns an error that parks the event at once.
func Park(reason string) error { return &ParkError{Reason: reason} }

// Unreadable is what a Handler returns for an event it can't decode, err being why: the event
// is parked at once with the reason, naming nothing in /status. But an errs.Unavailable error
// is returned as it is, and pauses the processor: decoding says so of an event written by a
// newer release of the service than this replica's (package aggregate's NewerSchemaError), which
// a replica of the newer release, once it holds the lease, reads; nothing is parked for it.
func Unreadable(e eventstore.Event, err error) error {
	if errs.Is(err, errs.Unavailable) {
		return err
	}
	return &ParkError{Reason: fmt.Sprintf("%s can't be read: %v", e.Type, err), Public: "the event can't be read"}
}

// PauseError says that what a handler depends on is down, not the event it was given.
type PauseError struct {
	Err error
}

func (e *PauseError) Error() string { return e.Err.Error() }

// PublicText implements PublicTexter, with the cause's public text.
func (e *PauseError) PublicText() string { return "paused: " + PublicText(e.Err) }
func (e *PauseError) Unwrap() error      { return e.Err }

// Pause returns an error that pauses the processor: see Handler.
func Pause(err error) error { return &PauseError{Err: err} }

// LaterError says that a handler can't take an event now, for a limit of its own, and will be
// able to once Ready is closed: see Handler.
type LaterError struct {
	// Ready is closed when the event may be started again. It is a hint, not a promise: an
	// event started again may be handed back again. Nil means "shortly" (100ms).
	Ready <-chan struct{}
	Err   error
}

func (e *LaterError) Error() string { return e.Err.Error() }
func (e *LaterError) Unwrap() error { return e.Err }

// PublicText implements PublicTexter.
func (e *LaterError) PublicText() string { return "waiting: " + PublicText(e.Err) }

// Later returns an error that hands the event back untried until ready is closed: see Handler.
func Later(ready <-chan struct{}, err error) error { return &LaterError{Ready: ready, Err: err} }

// WaitError says that a handler can't do its work on an event until something it is not told
// of changes, and that it will look again after For: see Handler.
type WaitError struct {
	// For is how long the event waits before it is tried again; at least 100ms.
	For time.Duration
	Err error
}

func (e *WaitError) Error() string { return e.Err.Error() }
func (e *WaitError) Unwrap() error { return e.Err }

// PublicText implements PublicTexter.
func (e *WaitError) PublicText() string { return "waiting: " + PublicText(e.Err) }

// Wait returns an error that defers the event for d, using up no attempt and keeping the
// timers its handling scheduled: see Handler.
func Wait(d time.Duration, err error) error { return &WaitError{For: d, Err: err} }

type attemptKey struct{}

// Attempt is the attempt at the event that a Handler is handling with ctx: 1 for the first,
// more for an event that was deferred before. It is 0 for a context that is not a handler's.
func Attempt(ctx context.Context) int {
	n, _ := ctx.Value(attemptKey{}).(int)
	return n
}

// WithAttempt returns ctx for attempt n at an event: what Attempt reads back. The runner calls
// the Handler with it.
func WithAttempt(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, attemptKey{}, n)
}
