-- Background work: where each processor has got to in the log, and the events it parked.
-- See internal/processor for the guarantees.

-- +goose Up
CREATE TABLE processor_checkpoints (
    name           text        PRIMARY KEY,
    -- A replay starts a new generation from the start of the log. A holder moves the
    -- checkpoint only from the exact (generation, transaction_id, position) it read, so a
    -- stale holder's write fails instead of moving the checkpoint back or applying twice.
    generation     bigint      NOT NULL DEFAULT 0,
    transaction_id xid8        NOT NULL DEFAULT '0',
    position       bigint      NOT NULL DEFAULT 0,
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- Events a processor gave up on after its retries, copied whole, kept until they are handled.
CREATE TABLE processor_parked (
    name           text        NOT NULL,
    position       bigint      NOT NULL,
    transaction_id xid8        NOT NULL,
    stream_id      text        NOT NULL,
    version        bigint      NOT NULL,
    type           text        NOT NULL,
    data           jsonb       NOT NULL,
    metadata       jsonb       NOT NULL,
    recorded_at    timestamptz NOT NULL,
    reason         text        NOT NULL,
    attempts       integer     NOT NULL,
    parked_at      timestamptz NOT NULL DEFAULT now(),
    -- Set by retry-parked; the holder then tries the event again.
    requeued       boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (name, position)
);

-- +goose Down
DROP TABLE processor_parked;
DROP TABLE processor_checkpoints;
