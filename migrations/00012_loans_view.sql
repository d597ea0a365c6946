-- The loans view model behind GET /loans and GET /accounts/{memberId}/loans (internal/loans),
-- written only by the holder of the "loans" processor's lease, in the same transaction as its
-- checkpoint.
--
-- One row per book, for its title; the loan columns hold its current loan, NULL while it is on
-- the shelf. Pages are in (due_at, book_id, loan_id) order, ids byte by byte as Go compares
-- strings: the ids take the "C" collation whatever the database's locale. Member ids are not
-- personal data (docs/api.md); no name or email is kept here.

-- +goose Up
CREATE TABLE loans_books (
    book_id   text COLLATE "C" PRIMARY KEY,
    title     text        NOT NULL,
    loan_id   text COLLATE "C",
    member_id text COLLATE "C",
    lent_at   timestamptz,
    due_at    timestamptz,
    renewals  integer     NOT NULL DEFAULT 0,
    CHECK ((loan_id IS NULL) = (member_id IS NULL) AND (loan_id IS NULL) = (lent_at IS NULL)
        AND (loan_id IS NULL) = (due_at IS NULL))
);

-- Everyone's loans, overdue first, and a member's.
CREATE INDEX loans_books_due ON loans_books (due_at, book_id, loan_id) WHERE loan_id IS NOT NULL;
CREATE INDEX loans_books_member ON loans_books (member_id, due_at, book_id, loan_id) WHERE loan_id IS NOT NULL;

-- +goose Down
DROP TABLE loans_books;
