-- A processor reads the events of the types it handles only (eventstore.Store.ReadTypes): one
-- scan of this index per type, each in the log's global order from the processor's checkpoint,
-- so that events of other types cost its reads nothing. Built without blocking appends.

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS events_type_order ON events (type, transaction_id, position);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS events_type_order;
