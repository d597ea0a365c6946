-- The log. See internal/eventstore for the guarantees these columns support.

-- +goose Up
CREATE TABLE events (
    position       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The writing transaction: readers order by (transaction_id, position) and read only
    -- below the oldest running transaction, so a late commit is never skipped.
    transaction_id xid8        NOT NULL DEFAULT pg_current_xact_id(),
    stream_id      text        NOT NULL,
    version        bigint      NOT NULL CHECK (version > 0),
    type           text        NOT NULL,
    data           jsonb       NOT NULL,
    -- Command id, command name, payload fingerprint and correlation id of the writer.
    metadata       jsonb       NOT NULL DEFAULT '{}',
    recorded_at    timestamptz NOT NULL DEFAULT now(),
    -- Optimistic concurrency: two appends at one version can't both commit.
    CONSTRAINT events_stream_version UNIQUE (stream_id, version)
);

CREATE INDEX events_global_order ON events (transaction_id, position);

-- +goose Down
DROP TABLE events;
