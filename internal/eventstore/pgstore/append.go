package pgstore

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/pgerr"
)

// appendRequest is one Append waiting to be written.
type appendRequest struct {
	streamID        string
	expectedVersion int64
	events          []eventstore.NewEvent
	done            chan appendResult // buffered: the writer never waits for the caller
	// span is the caller's span of this append, if it is traced: the batch's span links to it.
	span trace.Span
	// tell: the append notifies other processes itself, in its statement (appendOneToldSQL),
	// because it is written alone while no other batch is.
	tell bool
	// told are the types other processes are told of (nil: every type).
	told *toldTypes
}

type appendResult struct {
	events []eventstore.Event
	err    error
}

// partialAppend is the SQLSTATE of events_partial_append (migrations/00008_append_batch.sql).
const partialAppend = "LB001"

// appendBatchSQL writes many appends in one statement. Each append's events go in at the
// versions after its expected one, only if its stream's head is there, and ON CONFLICT DO
// NOTHING skips a version another writer has taken since. An append whose versions were all
// taken, or whose head had moved, writes nothing: a conflict for that append alone. One that
// lost some versions but not all would be half written: the statement then fails as a whole,
// through events_partial_append, and the store writes the batch's appends one by one. A batch
// holds at most one append per stream, so the input's (stream, version) pairs are distinct.
const appendBatchSQL = `
WITH input AS (
	SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[])
		AS i(append, stream_id, expected, version, type, data, metadata)
), heads AS (
	SELECT s.stream_id, coalesce((SELECT max(e.version) FROM events e WHERE e.stream_id = s.stream_id), 0) AS version
	FROM (SELECT DISTINCT stream_id FROM input) s
), inserted AS (
	INSERT INTO events (stream_id, version, type, data, metadata)
	SELECT i.stream_id, i.version, i.type, i.data::jsonb, i.metadata::jsonb
	FROM input i JOIN heads h ON h.stream_id = i.stream_id AND h.version = i.expected
	ORDER BY i.append, i.version
	ON CONFLICT (stream_id, version) DO NOTHING
	RETURNING stream_id, version, position, transaction_id, recorded_at
), counted AS (
	SELECT i.append, count(*) AS wanted, count(r.version) AS written
	FROM input i LEFT JOIN inserted r ON r.stream_id = i.stream_id AND r.version = i.version
	GROUP BY i.append
)
SELECT r.stream_id, r.version, r.position, r.transaction_id, r.recorded_at FROM inserted r
WHERE NOT EXISTS (
	SELECT 1 FROM counted c
	WHERE CASE WHEN c.written > 0 AND c.written < c.wanted THEN events_partial_append() ELSE 0 END = 1
)
ORDER BY r.position`

// appendOneSQL writes an append that has a batch to itself: the same rule as appendBatchSQL,
// with less to plan. Two appends that both see the same head race on UNIQUE (stream_id,
// version): one commits, the other fails with a unique violation, which is a conflict.
const appendOneSQL = appendOneInsert + `
SELECT position, transaction_id, version, recorded_at FROM inserted ORDER BY version`

// appendOneToldSQL is appendOneSQL that also notifies other processes of the append ($6, the
// channel; $7, the payload), in the same statement: a lone append on a quiet store is one round
// trip in all. Nothing inserted, nothing notified.
const appendOneToldSQL = appendOneInsert + `
SELECT position, transaction_id, version, recorded_at FROM inserted, (SELECT pg_notify($6, $7)) AS told
ORDER BY version`

const appendOneInsert = `
WITH head AS (
	SELECT coalesce(max(version), 0) AS version FROM events WHERE stream_id = $1
), inserted AS (
	INSERT INTO events (stream_id, version, type, data, metadata)
	SELECT $1, $2 + e.ord, e.type, e.data::jsonb, e.metadata::jsonb
	FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(type, data, metadata, ord)
	WHERE (SELECT version FROM head) = $2
	RETURNING position, transaction_id, version, recorded_at
)`

// textBytes is room for an event's data and its metadata, encoded (Metadata.AppendJSON,
// json.Marshal's bytes), as a command's usually are: a little data, and metadata with a key, a
// fingerprint, a request id and an actor.
const textBytes = 512

// writeOne writes a lone append with appendOneSQL.
func writeOne(ctx context.Context, q querier, req *appendRequest) appendResult {
	n := len(req.events)
	columns := make([]string, 3*n) // one allocation for the three columns
	types, data, metadata := columns[:n:n], columns[n:2*n:2*n], columns[2*n:]
	encoded := make([]byte, 0, textBytes)
	for i, e := range req.events {
		types[i] = e.Type
		data[i], metadata[i] = dataAndMetadata(&encoded, e)
	}
	var rows pgx.Rows
	var err error
	payload := ""
	if req.tell { // the types are worked out only for an append that tells
		if told := req.told.of(uniqueTypes(req.events)); len(told) > 0 {
			payload = payloadOf(told)
		}
	}
	if req.tell = payload != ""; req.tell {
		rows, err = q.Query(ctx, appendOneToldSQL, req.streamID, req.expectedVersion, types, data, metadata, notifyChannel, payload)
	} else {
		rows, err = q.Query(ctx, appendOneSQL, req.streamID, req.expectedVersion, types, data, metadata)
	}
	if err != nil {
		return appendResult{err: translate(ctx, err)}
	}
	recorded := make([]eventstore.Event, 0, n)
	for rows.Next() {
		// Scanned in place: an Event of its own would go to the heap for Scan's pointers.
		i := len(recorded)
		recorded = append(recorded, eventstore.Event{StreamID: req.streamID})
		e := &recorded[i]
		if err := rows.Scan(&e.Position, &e.TransactionID, &e.Version, &e.RecordedAt); err != nil {
			rows.Close()
			return appendResult{err: translate(ctx, err)}
		}
		e.Type, e.Data, e.Metadata = req.events[i].Type, append(json.RawMessage(nil), req.events[i].Data...), req.events[i].Metadata
		e.RecordedAt = e.RecordedAt.UTC()
	}
	conflict := func() error {
		return &eventstore.ConflictError{StreamID: req.streamID, ExpectedVersion: req.expectedVersion}
	}
	if err := rows.Err(); err != nil {
		if pgerr.Code(err) == pgerr.UniqueViolation {
			return appendResult{err: conflict()}
		}
		return appendResult{err: translate(ctx, err)}
	}
	if len(recorded) == 0 {
		return appendResult{err: conflict()}
	}
	return appendResult{events: recorded}
}

// dataAndMetadata are an event's data and its metadata, encoded, as the text the statements
// take: two strings cut from one, which is one allocation rather than two. encoded is a buffer
// for the metadata, used again from one event to the next.
func dataAndMetadata(encoded *[]byte, e eventstore.NewEvent) (data, metadata string) {
	*encoded = e.Metadata.AppendJSON(append((*encoded)[:0], e.Data...))
	both := string(*encoded)
	return both[:len(e.Data)], both[len(e.Data):]
}

// writeBatch writes the appends of a batch in one statement and reports each one's outcome. A
// failure of the statement that is not the database being unavailable is retried append by
// append, so that one bad append fails alone.
func writeBatch(ctx context.Context, q querier, batch []*appendRequest) []appendResult {
	if len(batch) == 1 {
		return []appendResult{writeOne(ctx, q, batch[0])}
	}
	results, err := writeTogether(ctx, q, batch)
	if err == nil {
		return results
	}
	if pgerr.Code(err) != partialAppend && isUnavailable(ctx, err) {
		out := make([]appendResult, len(batch))
		for i, req := range batch {
			out[i] = appendResult{err: failure(ctx, err, req)}
		}
		return out
	}
	out := make([]appendResult, len(batch))
	for i, req := range batch {
		out[i] = writeOne(ctx, q, req)
	}
	return out
}

// failure is what an append learns of a failed statement: a conflict when another writer took
// some of its versions, otherwise the store's error.
func failure(ctx context.Context, err error, req *appendRequest) error {
	if pgerr.Code(err) == partialAppend {
		return &eventstore.ConflictError{StreamID: req.streamID, ExpectedVersion: req.expectedVersion}
	}
	return translate(ctx, err)
}

func isUnavailable(ctx context.Context, err error) bool {
	return errs.Is(translate(ctx, err), errs.Unavailable)
}

// writeTogether runs appendBatchSQL for the batch.
func writeTogether(ctx context.Context, q querier, batch []*appendRequest) ([]appendResult, error) {
	var n int
	for _, req := range batch {
		n += len(req.events)
	}
	appends, streams := make([]int32, 0, n), make([]string, 0, n)
	expected, versions := make([]int64, 0, n), make([]int64, 0, n)
	columns := make([]string, 0, 3*n) // one allocation for the three columns
	types, data, metadata := columns[0:0:n], columns[n:n:2*n], columns[2*n:2*n]
	encoded := make([]byte, 0, textBytes)
	for i, req := range batch {
		for j, e := range req.events {
			d, m := dataAndMetadata(&encoded, e)
			appends, streams = append(appends, int32(i)), append(streams, req.streamID)
			expected, versions = append(expected, req.expectedVersion), append(versions, req.expectedVersion+int64(j)+1)
			types, data, metadata = append(types, e.Type), append(data, d), append(metadata, m)
		}
	}
	rows, err := q.Query(ctx, appendBatchSQL, appends, streams, expected, versions, types, data, metadata)
	if err != nil {
		return nil, err
	}
	scanned := make([]eventstore.Event, 0, n) // scanned in place: not an Event on the heap a row
	for rows.Next() {
		scanned = append(scanned, eventstore.Event{})
		e := &scanned[len(scanned)-1]
		if err := rows.Scan(&e.StreamID, &e.Version, &e.Position, &e.TransactionID, &e.RecordedAt); err != nil {
			rows.Close()
			return nil, err
		}
		e.RecordedAt = e.RecordedAt.UTC()
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	written := make(map[string][]eventstore.Event, len(batch))
	for _, e := range scanned {
		written[e.StreamID] = append(written[e.StreamID], e)
	}
	results := make([]appendResult, len(batch))
	for i, req := range batch {
		recorded := written[req.streamID]
		if len(recorded) == 0 {
			results[i] = appendResult{err: &eventstore.ConflictError{StreamID: req.streamID, ExpectedVersion: req.expectedVersion}}
			continue
		}
		slices.SortFunc(recorded, func(a, b eventstore.Event) int { return int(a.Version - b.Version) })
		for j := range recorded {
			e := req.events[j]
			recorded[j].Type, recorded[j].Data, recorded[j].Metadata = e.Type, append(json.RawMessage(nil), e.Data...), e.Metadata
		}
		results[i] = appendResult{events: recorded}
	}
	return results, nil
}

// appendEvents writes one append on q at once: a pool, or a transaction in tests that hold
// one open.
func appendEvents(ctx context.Context, q querier, streamID string, expectedVersion int64, events []eventstore.NewEvent) ([]eventstore.Event, error) {
	res := writeBatch(ctx, q, []*appendRequest{{streamID: streamID, expectedVersion: expectedVersion, events: events}})
	return res[0].events, res[0].err
}
