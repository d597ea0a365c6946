package catalogpg

// tablesSQL makes the tables of a build of the catalog at catalog.Version, in the build's schema
// (the first of the search path): catalog_books as migrations 00003, 00007 and 00014 left it,
// which is the first build's. A version bump that changes the table changes this, and only
// this: the migrations stay as they are, for the first build.
const tablesSQL = `
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

CREATE INDEX catalog_books_search ON catalog_books USING gin (search_text gin_trgm_ops)
    WITH (gin_pending_list_limit = 256);
`
