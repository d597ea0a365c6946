package processor

import (
	"context"
	"errors"

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
// parked events: never rename a processor that has run.
type Processor struct {
	Name string
	Kind Kind
	// ViewModel is set for KindViewModel.
	ViewModel ViewModel
	// Handler is set for KindOutbox and KindSaga.
	Handler Handler
}

// ViewModel is a read model kept up to date from the log. It owns the write of its checkpoint,
// so that its rows and its checkpoint move together.
type ViewModel interface {
	// Apply applies events to the read model and moves the checkpoint from from to to, in one
	// transaction. When the checkpoint is no longer at from, it writes nothing and returns
	// ErrFenced.
	Apply(ctx context.Context, from, to Position, events []eventstore.Event) error
	// Reset empties the read model and moves the checkpoint from from to the start of the next
	// generation, in one transaction, or returns ErrFenced.
	Reset(ctx context.Context, from Position) error
}

// Handler handles the events of an outbox or a saga, one at a time, in log order. It ignores
// (returns nil for) events it has nothing to do with.
//
// An error means "not done": the event is tried again with backoff and, after the last
// attempt, parked with the error as its reason. An error made by Park is parked at once.
// Handle may be called again for an event it has already handled (after a crash or a lost
// lease), so what it does must be safe to repeat or carry a stable id that the receiver can
// deduplicate on.
type Handler interface {
	Handle(ctx context.Context, e eventstore.Event) error
}

// Idler is implemented by handlers that keep something open from one event to the next, such
// as an SMTP connection. Idle is called once the processor has had nothing to handle for a
// second, and when it stops running here; the handler closes what it keeps open.
type Idler interface {
	Idle()
}

// ParkError is a failure that retrying can't fix, such as a loan email to a member who has no
// email address. The event is parked at once with Reason.
type ParkError struct {
	Reason string
}

func (e *ParkError) Error() string { return e.Reason }

// Park returns an error that parks the event at once.
func Park(reason string) error { return &ParkError{Reason: reason} }

func parkNow(err error) bool {
	var p *ParkError
	return errors.As(err, &p)
}
