-- Members' data keys, for crypto-shredding (see internal/pii): each member's personal values
-- are sealed in the log with their own data key, kept here wrapped by a key-encryption key from
-- PII_KEY (kek_id names it). Erasing a member deletes their row, in the same transaction as the
-- event that records the erasure: their sealed values can then never be read again.
--
-- The installation's fingerprint key makes the payload fingerprints in the events' metadata
-- keyed hashes (HMAC), so that a guess at a payload can't be confirmed from the log alone.

-- +goose Up
CREATE TABLE member_keys (
    owner      text        PRIMARY KEY,
    kek_id     text        NOT NULL,
    wrapped    bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE installation ADD COLUMN fingerprint_key bytea;

-- +goose Down
ALTER TABLE installation DROP COLUMN fingerprint_key;
DROP TABLE member_keys;
