package pgstore

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"library/internal/eventstore"
	"library/internal/pgerr"
)

// AppendBulk implements eventstore.Bulk: the parts in one transaction of their own, all or
// nothing, as AppendAll writes them, but the new streams' events (ExpectedVersion 0) go in
// through one COPY, which PostgreSQL takes at its own pace rather than a statement's per
// stream. The events are the same rows an Append writes: the same columns, metadata,
// positions from the same sequence and the transaction's id, so the read horizon holds back
// every reader until the transaction commits, and every view and saga reads them as usual.
// A new stream that another writer made meanwhile fails the COPY on UNIQUE (stream_id,
// version): nothing is written, and the *ConflictError names no stream.
func (p *Postgres) AppendBulk(ctx context.Context, parts []eventstore.StreamAppend) error {
	if err := eventstore.ValidateAppendAll(parts); err != nil {
		return err
	}
	ctx, span := trace.SpanFromContext(ctx).TracerProvider().Tracer(tracerName).Start(ctx, "append bulk",
		trace.WithAttributes(attribute.Int("library.streams", len(parts))))
	defer span.End()
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return translate(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := copyNewStreams(ctx, tx, parts); err != nil {
		return err
	}
	for _, part := range parts {
		if part.ExpectedVersion == 0 {
			continue
		}
		res := writeOne(ctx, tx, &appendRequest{streamID: part.StreamID, expectedVersion: part.ExpectedVersion, events: part.Events})
		if res.err != nil {
			return res.err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return translate(ctx, err)
	}
	p.typesAppendedNow(partsTypes(parts))
	return nil
}

// copyNewStreams writes the events of the parts that start a stream with one COPY, in the
// parts' order.
func copyNewStreams(ctx context.Context, tx pgx.Tx, parts []eventstore.StreamAppend) error {
	rows := newStreamRows{parts: parts, part: -1}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"stream_id", "version", "type", "data", "metadata"}, &rows)
	switch {
	case err == nil:
		return nil
	case pgerr.Code(err) == pgerr.UniqueViolation:
		return &eventstore.ConflictError{}
	default:
		return translate(ctx, err)
	}
}

// newStreamRows is the rows of the events of the parts whose ExpectedVersion is 0, as
// pgx.CopyFromSource: each event's stream, version (from 1), type, data and metadata.
type newStreamRows struct {
	parts   []eventstore.StreamAppend
	part    int // the part in hand, -1 before the first
	event   int // the event of that part in hand
	encoded []byte
	meta    eventstore.Metadata // what encoded encodes: the events of a part, most often, share it
	values  [5]any
}

func (r *newStreamRows) Next() bool {
	r.event++
	for r.part < 0 || r.event >= len(r.parts[r.part].Events) || r.parts[r.part].ExpectedVersion != 0 {
		r.part, r.event = r.part+1, 0
		if r.part >= len(r.parts) {
			return false
		}
	}
	return true
}

func (r *newStreamRows) Values() ([]any, error) {
	part := r.parts[r.part]
	e := part.Events[r.event]
	if r.encoded == nil || e.Metadata != r.meta {
		r.encoded, r.meta = e.Metadata.AppendJSON(r.encoded[:0]), e.Metadata
	}
	r.values = [5]any{part.StreamID, int64(r.event + 1), e.Type, e.Data, json.RawMessage(r.encoded)} // encoded before the next row is asked for
	return r.values[:], nil
}

func (r *newStreamRows) Err() error { return nil }

// streamVersionsSQL looks each stream up on its own, through UNIQUE (stream_id, version): as a
// filter (stream_id = ANY), a table whose statistics were taken while it was small is read
// whole, for every batch of an import into it.
const streamVersionsSQL = `
SELECT s.id, v.version FROM unnest($1::text[]) AS s(id),
	LATERAL (SELECT max(e.version) AS version FROM events e WHERE e.stream_id = s.id) v
WHERE v.version IS NOT NULL`

// StreamVersions implements eventstore.Bulk, in one statement.
func (p *Postgres) StreamVersions(ctx context.Context, streamIDs []string) (map[string]int64, error) {
	rows, err := p.pool.Query(ctx, streamVersionsSQL, streamIDs)
	if err != nil {
		return nil, translate(ctx, err)
	}
	out := map[string]int64{}
	var id string
	var version int64
	_, err = pgx.ForEachRow(rows, []any{&id, &version}, func() error {
		out[id] = version
		return nil
	})
	if err != nil {
		return nil, translate(ctx, err)
	}
	return out, nil
}

// readStreamsSQL reads each stream on its own, through UNIQUE (stream_id, version), for the
// reason streamVersionsSQL does.
const readStreamsSQL = `
SELECT e.* FROM unnest($1::text[]) AS s(id),
	LATERAL (` + selectEvent + ` WHERE events.stream_id = s.id) e
ORDER BY e.stream_id, e.version`

// ReadStreams implements eventstore.Bulk, in one statement.
func (p *Postgres) ReadStreams(ctx context.Context, streamIDs []string) (map[string][]eventstore.Event, error) {
	rows, err := p.pool.Query(ctx, readStreamsSQL, streamIDs)
	if err != nil {
		return nil, translate(ctx, err)
	}
	events, err := collectEvents(ctx, rows, 0)
	if err != nil {
		return nil, err
	}
	out := map[string][]eventstore.Event{}
	for _, e := range events {
		out[e.StreamID] = append(out[e.StreamID], e)
	}
	return out, nil
}
