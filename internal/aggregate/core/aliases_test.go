package core

import (
	"library/internal/aggregate"
	"library/internal/aggregate/stack"
)

// The tests of the core speak of the package aggregate's types by their short names.
type (
	Type[S any]          = aggregate.Type[S]
	Command[S any]       = aggregate.Command[S]
	Loaded[S any]        = aggregate.Loaded[S]
	SnapshotCodec[S any] = aggregate.SnapshotCodec[S]
	Options              = aggregate.Options
	Event                = aggregate.Event
	Result               = aggregate.Result
	Origin               = aggregate.Origin
	Also                 = aggregate.Also
	Outcome              = aggregate.Outcome
	RecordedEvent        = aggregate.RecordedEvent
	Codec                = aggregate.Codec
)

const NothingChanged = aggregate.NothingChanged

func EventCodec[E Event]() aggregate.Codec { return aggregate.EventCodec[E]() }

// NewRepository is a repository on log with what opts ask for stacked on it, as the services
// build theirs.
func NewRepository[S any](log aggregate.Log, t Type[S], opts Options) *Repository[S] {
	return New(stack.Store(log, t, opts), t, opts)
}
