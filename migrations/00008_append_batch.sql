-- Appends are written in batches: one statement inserts the events of many commands, each at
-- the versions its stream's head allows, skipping (ON CONFLICT DO NOTHING) those another writer
-- took first. An append must be written whole or not at all: when another writer took some of
-- an append's versions but not all, the statement calls this function, whose error undoes the
-- whole statement, and the store writes those appends one by one. See internal/eventstore.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION events_partial_append() RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'an append was only partly written: another writer took some of its versions'
        USING ERRCODE = 'LB001';
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION events_partial_append();
