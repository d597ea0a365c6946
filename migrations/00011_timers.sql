-- Processors' timers: "at due_at, for this key, do this", scheduled by a processor's handler
-- in the transaction that moves its checkpoint past the event it handled, and fired by
-- whoever holds the processor's lease once the database's clock (now()) reaches fire_at.
-- See internal/processor.

-- +goose Up
-- Every schedule takes a new version, never used before: a fired timer is forgotten only if
-- its version is still the one that was fired, so a timer scheduled again meanwhile stays.
CREATE SEQUENCE processor_timer_versions;

CREATE TABLE processor_timers (
    processor  text        NOT NULL,
    key        text        NOT NULL,
    -- When it is due, as scheduled: kept through retries, so that what its fire does, keyed
    -- by (key, due_at), is recognised when it is done again.
    due_at     timestamptz NOT NULL,
    -- When it is to fire: due_at, or the next attempt after a failed fire.
    fire_at    timestamptz NOT NULL,
    data       jsonb       NOT NULL,
    attempts   integer     NOT NULL DEFAULT 0,
    last_error text        NOT NULL DEFAULT '',
    version    bigint      NOT NULL,
    PRIMARY KEY (processor, key)
);

CREATE INDEX processor_timers_due ON processor_timers (processor, fire_at);

-- +goose Down
DROP TABLE processor_timers;
DROP SEQUENCE processor_timer_versions;
