-- The catalog served a page at a time and searched (internal/books, catalog_postgres.go).
--
-- Pages are in book id order, byte by byte, as Go compares strings: book_id takes the "C"
-- collation, so its primary key serves `ORDER BY book_id` and `book_id > $after` whatever the
-- database's locale (ids are ASCII, so no id changes place).
--
-- A search word is a substring of search_text, which is title and author folded to lower case
-- and joined by U+001F. No search word holds a control character, so none can match across
-- that boundary: a word is found in search_text exactly when it is found in the title or in
-- the author. The folding is Unicode's lower case from ICU's root locale, then every final
-- sigma (U+03C2, 962) made a sigma (U+03C3, 963) and every "i" with a combining dot above
-- (U+0307, 775) made "i": books.FoldCase gives the same text in Go (see there). A server built
-- without ICU lowers with the database's own locale instead: under the C locale, ASCII letters
-- only.
--
-- A trigram index serves `search_text LIKE '%word%'` for each word.

-- +goose Up
-- pg_trgm is a trusted extension (PostgreSQL 13 and later): the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE catalog_books ALTER COLUMN book_id TYPE text COLLATE "C";

-- +goose StatementBegin
DO $$
BEGIN
    -- PL/pgSQL plans a statement when it first runs it, so the branch not taken may name a
    -- collation this server lacks.
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
-- +goose StatementEnd

-- New entries wait in the index's pending list until it is full, and every search reads the
-- whole list: at the default 4 MB (some 5,000 books) that cost a search at 100,000 books a few
-- milliseconds more. 256 kB keeps it to some 250 books, which the catalog's writer merges as it
-- goes, at a small cost to catching up (see bench/).
CREATE INDEX catalog_books_search ON catalog_books USING gin (search_text gin_trgm_ops)
    WITH (gin_pending_list_limit = 256);

-- +goose Down
DROP INDEX catalog_books_search;
ALTER TABLE catalog_books DROP COLUMN search_text;
ALTER TABLE catalog_books ALTER COLUMN book_id TYPE text COLLATE "default";
-- pg_trgm stays: it may have been there before, and other objects may use it.
