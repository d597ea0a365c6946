package catalogpg

// The tables of a build of the catalog, made in the build's schema (the first of the search
// path): catalog_books as migrations 00003, 00007 and 00014 left it, which is the first
// build's, from catalog.TitlesFrom catalog_titles, and from catalog.MissingFrom catalog_books'
// column missing. A version bump that changes the tables
// changes these, and only these: the migrations stay as they are, for the first build.

// booksSQL makes catalog_books.
const booksSQL = `
CREATE TABLE catalog_books (
    book_id    text COLLATE "C" PRIMARY KEY,
    title      text        NOT NULL,
    author     text        NOT NULL,
    version    bigint      NOT NULL,
    loan_id    text,
    member_id  text,
    lent_at    timestamptz,
    due_at     timestamptz,
    held_by    text,
    held_until timestamptz,
    CHECK ((held_by IS NULL) = (held_until IS NULL))
);

CREATE INDEX catalog_books_lent ON catalog_books (book_id) WHERE loan_id IS NOT NULL;
CREATE INDEX catalog_books_held ON catalog_books (book_id) WHERE held_until IS NOT NULL AND loan_id IS NULL;

DO $$
BEGIN
    -- As in migrations/00007_catalog_search.sql: Unicode's lower case where the server has ICU.
    IF EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
        ALTER TABLE catalog_books ADD COLUMN search_text text COLLATE "C" NOT NULL
            GENERATED ALWAYS AS (replace(replace(lower((title || E'\x1f' || author) COLLATE "und-x-icu"),
                chr(962), chr(963)), 'i' || chr(775), 'i')) STORED;
    ELSE
        ALTER TABLE catalog_books ADD COLUMN search_text text COLLATE "C" NOT NULL
            GENERATED ALWAYS AS (replace(replace(lower(title || E'\x1f' || author),
                chr(962), chr(963)), 'i' || chr(775), 'i')) STORED;
    END IF;
END
$$;

CREATE INDEX ` + booksSearchIndex + `;
`

// booksSearchIndex and titlesSearchIndex are the trigram indexes that find books and titles by
// the words of their search_text, as CREATE INDEX has them after its keywords; the books' as
// migrations/00007_catalog_search.sql made it for the first build. New entries wait in a
// pending list of 256 kB, which every search reads whole (see that migration).
const (
	booksSearchIndex = `catalog_books_search ON catalog_books USING gin (search_text gin_trgm_ops)
    WITH (gin_pending_list_limit = 256)`
	titlesSearchIndex = `catalog_titles_search ON catalog_titles USING gin (search_text gin_trgm_ops)
    WITH (gin_pending_list_limit = 256)`
)

// missingSQL adds what a build from catalog.MissingFrom keeps of a copy on no shelf: "lost" or
// "claimedReturned" while it is, NULL otherwise; and an index for the pages of those copies,
// which are few.
const missingSQL = `
ALTER TABLE catalog_books ADD COLUMN missing text;
CREATE INDEX catalog_books_missing ON catalog_books (book_id) WHERE missing IS NOT NULL;
`

// titlesSQL makes catalog_titles: one row per title, its record as GET /titles shows it, the
// copies and the queue the Title aggregate folds (copies, holds: what the next event is applied
// to), and what is kept of them to search, sort and count. sort_title and search_text are
// written as catalog.SortTitle and catalog.TitleSearchText make them, folded as catalog_books'
// search_text is. The indexes: (sort_title, title_id) for pages in order from a cursor (the
// keyset), the same for the titles with a copy on the shelf alone, the trigram index for
// words, and isbn for a search that is one.
const titlesSQL = `
CREATE TABLE catalog_titles (
    title_id         text COLLATE "C" PRIMARY KEY,
    title            text     NOT NULL,
    authors          text[]   NOT NULL,
    isbn             text,
    year             integer,
    publisher        text,
    language         text,
    subjects         text[]   NOT NULL,
    sort_title       text COLLATE "C" NOT NULL,
    search_text      text COLLATE "C" NOT NULL,
    copies_total     integer  NOT NULL,
    copies_available integer  NOT NULL,
    holds_waiting    integer  NOT NULL,
    copies           jsonb    NOT NULL,
    holds            jsonb    NOT NULL
);

CREATE INDEX ` + titlesOrderIndex + `;
CREATE INDEX ` + titlesAvailableIndex + `;
CREATE INDEX ` + titlesISBNIndex + `;
CREATE INDEX ` + titlesSearchIndex + `;
`

// The B-tree indexes of catalog_titles, as CREATE INDEX has them after its keywords: a
// catch-up in bulk drops them too, and makes them again once it has caught up.
const (
	titlesOrderIndex     = `catalog_titles_order ON catalog_titles (sort_title, title_id)`
	titlesAvailableIndex = `catalog_titles_available ON catalog_titles (sort_title, title_id) WHERE copies_available > 0`
	titlesISBNIndex      = `catalog_titles_isbn ON catalog_titles (isbn) WHERE isbn IS NOT NULL`
)
