package pgstore

import (
	"context"

	"library/internal/eventstore"
)

var (
	_ eventstore.Snapshots     = (*Postgres)(nil)
	_ eventstore.VersionReader = (*Postgres)(nil)
)

// saveSnapshotSQL checks the snapshot against the log and keeps it, in one statement: it is
// written only if its event is in the log at its version and position, and it replaces the
// stored snapshot only if it is of a higher version, of another schema version, or the stored
// one no longer matches the log. The statement returns whether the snapshot matched the log.
// WINDOW is a reserved word, hence "window".
const saveSnapshotSQL = `
WITH event AS (
	SELECT stream_id, version, position FROM events WHERE stream_id = $1 AND version = $2 AND position = $3
), saved AS (
	INSERT INTO snapshots AS s (stream_id, version, position, schema_version, state, "window")
	SELECT stream_id, version, position, $4::integer, $5::bytea, $6::bytea FROM event
	ON CONFLICT (stream_id) DO UPDATE
	SET version = excluded.version, position = excluded.position, schema_version = excluded.schema_version,
		state = excluded.state, "window" = excluded."window", written_at = now()
	WHERE excluded.version > s.version OR excluded.schema_version <> s.schema_version
		OR NOT EXISTS (SELECT FROM events e WHERE e.stream_id = s.stream_id AND e.version = s.version AND e.position = s.position)
)
SELECT EXISTS (SELECT FROM event)`

// SaveSnapshot implements eventstore.Snapshots.
func (p *Postgres) SaveSnapshot(ctx context.Context, s eventstore.Snapshot) error {
	if err := eventstore.ValidateSnapshot(s); err != nil {
		return err
	}
	var matched bool
	err := p.pool.QueryRow(ctx, saveSnapshotSQL, s.StreamID, s.Version, s.Position, s.SchemaVersion,
		orEmpty(s.State), orEmpty(s.Window)).Scan(&matched)
	if err != nil {
		return translate(ctx, err)
	}
	if !matched {
		return eventstore.Mismatch(s)
	}
	return nil
}

// loadStreamSQL reads a stream's snapshot and the events after it in one statement, so one
// consistent read. The snapshot is read only if the log holds its event at its version and
// position; its row carries that event's columns, with is_snapshot true and its state and
// window. The events follow, from the snapshot's version (0 without one), in version order.
//
// The tail is bounded on both sides on purpose. With one bound only, the planner can't know the
// snapshot's version and guesses that a third of the stream follows it: on a long stream that
// is a scan of the whole table. Between two bounds it can't know it guesses a short range, and
// reads the stream's index from the snapshot on, whatever the stream's length.
const loadStreamSQL = `
WITH snapshot AS (
	SELECT s.state, s."window", e.stream_id, e.version, e.position, e.transaction_id, e.type, e.data,
		e.metadata, e.recorded_at
	FROM snapshots s
	JOIN events e ON e.stream_id = s.stream_id AND e.version = s.version AND e.position = s.position
	WHERE s.stream_id = $1 AND s.schema_version = $2
)
SELECT true AS is_snapshot, state, "window", ` + eventColumns + ` FROM snapshot
UNION ALL
SELECT false, NULL, NULL, ` + eventColumns + ` FROM events
WHERE stream_id = $1 AND version > coalesce((SELECT version FROM snapshot), 0)
	AND version <= coalesce((SELECT version FROM snapshot), 0) + 4611686018427387904
ORDER BY version`

// LoadStream implements eventstore.Snapshots.
func (p *Postgres) LoadStream(ctx context.Context, streamID string, schemaVersion int) (*eventstore.Snapshot, []eventstore.Event, error) {
	rows, err := p.pool.Query(ctx, loadStreamSQL, streamID, schemaVersion)
	if err != nil {
		return nil, nil, translate(ctx, err)
	}
	defer rows.Close()
	var snapshot *eventstore.Snapshot
	events := []eventstore.Event{}
	for rows.Next() {
		var isSnapshot bool
		var state, window, data []byte
		var e eventstore.Event
		if err := rows.Scan(eventTargets(&e, &data, &isSnapshot, &state, &window)...); err != nil {
			return nil, nil, translate(ctx, err)
		}
		if isSnapshot {
			snapshot = &eventstore.Snapshot{StreamID: e.StreamID, Version: e.Version, Position: e.Position,
				SchemaVersion: schemaVersion, State: orEmpty(state), Window: orEmpty(window)}
			continue
		}
		e.Data, e.RecordedAt = data, e.RecordedAt.UTC()
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, translate(ctx, err)
	}
	return snapshot, events, nil
}

// DeleteSnapshot implements eventstore.Snapshots.
func (p *Postgres) DeleteSnapshot(ctx context.Context, streamID string) error {
	if _, err := p.pool.Exec(ctx, `DELETE FROM snapshots WHERE stream_id = $1`, streamID); err != nil {
		return translate(ctx, err)
	}
	return nil
}

// ReadVersions implements eventstore.VersionReader.
func (p *Postgres) ReadVersions(ctx context.Context, streamID string, from, to int64) ([]eventstore.Event, error) {
	rows, err := p.pool.Query(ctx, selectEvent+` WHERE stream_id = $1 AND version BETWEEN $2 AND $3 ORDER BY version`,
		streamID, from, to)
	if err != nil {
		return nil, translate(ctx, err)
	}
	return collectEvents(ctx, rows, 0)
}

// orEmpty is b, or an empty slice for nil: pgx sends a nil slice as NULL.
func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
