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
	p.typesAppendedNow(partsTypes(parts))
	return out, nil
}

// appendedNow wakes the readers of events' types in this process at once, and those of other
// processes by the next notification, which names the types appended since the one before
// that other processes are told of (TellOnly): none, no notification.
func (p *Postgres) appendedNow(events []eventstore.NewEvent) {
	p.typesAppendedNow(uniqueTypes(events))
}

// typesAppendedNow is appendedNow for the distinct types of the events appended.
func (p *Postgres) typesAppendedNow(types []string) {
	p.subscribers.Wake(types...) // readers in this process need no round trip
	told := p.told.of(types)
	if len(told) == 0 {
		return
	}
	p.appendedMu.Lock()
	for _, t := range told {
		p.appendedTypes = eventstore.AddType(p.appendedTypes, t)
	}
	p.appendedMu.Unlock()
	select {
	case p.appended <- struct{}{}:
	default: // a notification is already pending; it covers this append too
	}
}

// uniqueTypes are the distinct types of events, in the order they first come.
func uniqueTypes(events []eventstore.NewEvent) []string {
	var types []string
	for _, e := range events {
		types = eventstore.AddType(types, e.Type)
	}
	return types
}

// partsTypes are the distinct types of the parts' events, in the order they first come.
func partsTypes(parts []eventstore.StreamAppend) []string {
	var types []string
	for _, part := range parts {
		for _, e := range part.Events {
			types = eventstore.AddType(types, e.Type)
		}
	}
	return types
}
