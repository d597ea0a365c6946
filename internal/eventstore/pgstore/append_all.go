package pgstore

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"library/internal/eventstore"
)

// AppendAll implements eventstore.Store: the parts are written in one transaction of their
// own, outside group commit, each with the statement of a lone append, so that a part whose
// stream has moved on rolls back them all. The parts are written in eventstore.WriteOrder.
func (p *Postgres) AppendAll(ctx context.Context, parts []eventstore.StreamAppend) ([][]eventstore.Event, error) {
	if err := eventstore.ValidateAppendAll(parts); err != nil {
		return nil, err
	}
	ctx, span := trace.SpanFromContext(ctx).TracerProvider().Tracer(tracerName).Start(ctx, "append",
		trace.WithAttributes(attribute.Int("library.streams", len(parts))))
	defer span.End()
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return nil, translate(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	out := make([][]eventstore.Event, len(parts))
	for _, i := range eventstore.WriteOrder(parts) {
		part := parts[i]
		res := writeOne(ctx, tx, &appendRequest{streamID: part.StreamID, expectedVersion: part.ExpectedVersion, events: part.Events})
		if res.err != nil {
			return nil, res.err
		}
		out[i] = res.events
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, translate(ctx, err)
	}
	p.appendedNow()
	return out, nil
}

// appendedNow wakes the readers of this process at once, and those of others by the next
// notification.
func (p *Postgres) appendedNow() {
	p.subscribers.Wake() // readers in this process need no round trip
	select {
	case p.appended <- struct{}{}:
	default: // a notification is already pending; it covers this append too
	}
}
