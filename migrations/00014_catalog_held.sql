-- The catalog shows a book on the hold shelf as held (internal/catalog). held_until is when it
-- leaves the shelf unless picked up, NULL while it is held for nobody; held_by tells the
-- holder's cancel from that of a member still waiting: not their member id, but a digest of it
-- with the book's id (catalog.holderTag), so the catalog keeps no member id for a hold, before
-- or after an erasure.
--
-- Books already on the hold shelf when this runs show as available until the catalog is
-- rebuilt (POST /admin/processors/catalog/replay).

-- +goose Up
ALTER TABLE catalog_books ADD COLUMN held_by text, ADD COLUMN held_until timestamptz,
    ADD CHECK ((held_by IS NULL) = (held_until IS NULL));

CREATE INDEX catalog_books_held ON catalog_books (book_id) WHERE held_until IS NOT NULL AND loan_id IS NULL;

-- +goose Down
DROP INDEX catalog_books_held;
ALTER TABLE catalog_books DROP COLUMN held_until, DROP COLUMN held_by;
