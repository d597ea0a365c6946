-- Every loan email the relay accepted, recorded right after its 250 by the holder of the
-- outbox's lease, so that no holder sends it again. See internal/notifications.

-- +goose Up
CREATE TABLE email_accepted (
    message_id  text        PRIMARY KEY,
    position    bigint      NOT NULL,
    loan_id     text        NOT NULL,
    accepted_at timestamptz NOT NULL,
    attempts    integer     NOT NULL
);

-- +goose Down
DROP TABLE email_accepted;
