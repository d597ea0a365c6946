-- The holds view model behind GET /holds and GET /accounts/{memberId}/holds (internal/holds),
-- written only by the holder of the "holds" processor's lease, in the same transaction as its
-- checkpoint.
--
-- holds_books has every book's title. holds has one row per hold that has not ended: a member
-- waiting for a book (held_until NULL), or a book on the hold shelf for them until held_until.
-- seq is the version of the book's stream at the hold's HoldPlaced, so a book's holds in seq
-- order are its holder, then its queue in order: a waiting hold's place is 1 and the number of
-- the book's waiting holds before it, worked out when a page is read. Ids take the "C" collation,
-- so they sort byte by byte as Go compares strings. Member ids are not personal data
-- (docs/api.md); no name or email is kept here.

-- +goose Up
CREATE TABLE holds_books (
    book_id text COLLATE "C" PRIMARY KEY,
    title   text NOT NULL
);

CREATE TABLE holds (
    book_id    text COLLATE "C" NOT NULL,
    seq        bigint      NOT NULL,
    member_id  text COLLATE "C" NOT NULL,
    placed_at  timestamptz NOT NULL,
    held_until timestamptz,
    PRIMARY KEY (book_id, seq),
    UNIQUE (book_id, member_id)
);

-- The queues, and the places in them; the hold shelf, soonest to leave first; a member's holds.
CREATE INDEX holds_waiting ON holds (book_id, seq) WHERE held_until IS NULL;
CREATE INDEX holds_shelf ON holds (held_until, book_id, seq) WHERE held_until IS NOT NULL;
CREATE INDEX holds_member ON holds (member_id, book_id, seq);

-- +goose Down
DROP TABLE holds;
DROP TABLE holds_books;
