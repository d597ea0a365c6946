-- Events a processor will try again later, off the line: its checkpoint has passed them, and
-- whoever holds its lease tries each again at next_attempt_at. retry-parked turns parked events
-- into deferred ones, due at once. See internal/processor.

-- +goose Up
CREATE TABLE processor_deferred (
    name            text        NOT NULL,
    position        bigint      NOT NULL,
    transaction_id  xid8        NOT NULL,
    stream_id       text        NOT NULL,
    version         bigint      NOT NULL,
    type            text        NOT NULL,
    data            jsonb       NOT NULL,
    metadata        jsonb       NOT NULL,
    recorded_at     timestamptz NOT NULL,
    reason          text        NOT NULL,
    attempts        integer     NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    PRIMARY KEY (name, position)
);

CREATE INDEX processor_deferred_due ON processor_deferred (name, next_attempt_at);

-- Parked events that retry-parked had marked are deferred now, due at once.
INSERT INTO processor_deferred
  (name, position, transaction_id, stream_id, version, type, data, metadata, recorded_at, reason, attempts, next_attempt_at)
SELECT name, position, transaction_id, stream_id, version, type, data, metadata, recorded_at, reason, 0, now()
FROM processor_parked WHERE requeued;
DELETE FROM processor_parked WHERE requeued;
ALTER TABLE processor_parked DROP COLUMN requeued;

-- +goose Down
ALTER TABLE processor_parked ADD COLUMN requeued boolean NOT NULL DEFAULT false;
INSERT INTO processor_parked
  (name, position, transaction_id, stream_id, version, type, data, metadata, recorded_at, reason, attempts, requeued)
SELECT name, position, transaction_id, stream_id, version, type, data, metadata, recorded_at, reason, attempts, true
FROM processor_deferred
ON CONFLICT (name, position) DO NOTHING;
DROP TABLE processor_deferred;
