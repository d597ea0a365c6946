-- The catalog view model behind GET /books, written only by the holder of the "catalog"
-- processor's lease, in the same transaction as its checkpoint.

-- +goose Up
CREATE TABLE catalog_books (
    book_id   text        PRIMARY KEY,
    title     text        NOT NULL,
    author    text        NOT NULL,
    version   bigint      NOT NULL,
    loan_id   text,
    member_id text,
    lent_at   timestamptz,
    due_at    timestamptz
);

CREATE INDEX catalog_books_lent ON catalog_books (book_id) WHERE loan_id IS NOT NULL;

-- +goose Down
DROP TABLE catalog_books;
