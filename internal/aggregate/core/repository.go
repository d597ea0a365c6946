package core

import (
	"library/internal/aggregate"
	"library/internal/aggregate/queue"
	"library/internal/aggregate/window"
	"library/internal/tracing"
)

// Repository loads and changes the aggregates of one type.
type Repository[S any] struct {
	store  aggregate.Store[S]
	typ    aggregate.Type[S]
	opts   aggregate.Options
	queues *queue.Queues[*waiter[S]]
	fp     *window.LazyFingerprinter // of Options.FingerprintKey
	// traced: Options.Tracer records spans. Without one, a command makes no span at all.
	traced bool
}

// New returns a repository of aggregates of type t, kept in store (package stack builds the
// one the options ask for).
func New[S any](store aggregate.Store[S], t aggregate.Type[S], opts aggregate.Options) *Repository[S] {
	opts = opts.WithDefaults()
	if opts.Observer == nil {
		opts.Observer = noObserver{}
	}
	if opts.Tracer == nil {
		opts.Tracer = tracing.Tracer(nil, "library/internal/aggregate")
	}
	return &Repository[S]{store: store, typ: t, opts: opts, queues: queue.New[*waiter[S]](),
		fp: window.NewLazyFingerprinter(opts.FingerprintKey), traced: tracing.Records(opts.Tracer)}
}
