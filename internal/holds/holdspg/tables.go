package holdspg

// tablesSQL makes the tables of a build of the holds view at holds.Version, in the build's
// schema (the first of the search path): holds and holds_books as
// migrations/00013_holds_view.sql made them, which are the first build's. A version bump that
// changes them changes this, and only this: the migrations stay as they are, for the first
// build.
const tablesSQL = `
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

CREATE INDEX holds_waiting ON holds (book_id, seq) WHERE held_until IS NULL;
CREATE INDEX holds_shelf ON holds (held_until, book_id, seq) WHERE held_until IS NOT NULL;
CREATE INDEX holds_member ON holds (member_id, book_id, seq);
`
