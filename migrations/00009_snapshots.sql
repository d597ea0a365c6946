-- Snapshots of streams: each stream's state folded up to a version, with the window of its
-- recent command ids, so that loading a stream reads the snapshot and only the events after
-- it. A cache of the log, never the truth: a snapshot is written after its command commits,
-- ignored when it no longer matches the log (the event at its version missing, or at another
-- position), and truncating this table loses nothing. state and window are the aggregate's own
-- encodings, of its schema_version. See internal/eventstore.

-- +goose Up
CREATE TABLE snapshots (
    stream_id      text        PRIMARY KEY,
    -- The stream's version the snapshot is folded up to, and the position of its event there.
    version        bigint      NOT NULL,
    position       bigint      NOT NULL,
    schema_version integer     NOT NULL,
    state          bytea       NOT NULL,
    -- WINDOW is a reserved word: the column is always quoted.
    "window"       bytea       NOT NULL,
    written_at     timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE snapshots;
