package loanspg

// tablesSQL makes the tables of a build of the loans view at loans.Version, in the build's
// schema (the first of the search path): loans_books as migrations/00012_loans_view.sql made
// it, which is the first build's, and from loans.MovedFrom the columns of a due time's move
// (movedSQL). A version bump that changes the table changes this, and only this: the
// migrations stay as they are, for the first build.
const tablesSQL = `
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

CREATE INDEX loans_books_due ON loans_books (due_at, book_id, loan_id) WHERE loan_id IS NOT NULL;
CREATE INDEX loans_books_member ON loans_books (member_id, due_at, book_id, loan_id) WHERE loan_id IS NOT NULL;
`

// movedSQL adds to loans_books, from loans.MovedFrom, why the loan's due time last moved: all
// three set, or none; read only while the row has a loan.
const movedSQL = `
ALTER TABLE loans_books
    ADD COLUMN moved_from   timestamptz,
    ADD COLUMN moved_reason text,
    ADD COLUMN moved_date   text,
    ADD CHECK ((moved_from IS NULL) = (moved_reason IS NULL) AND (moved_from IS NULL) = (moved_date IS NULL)),
    -- the renewals the loan's terms allow; NULL for a loan on no terms
    ADD COLUMN renewals_allowed integer;
`
