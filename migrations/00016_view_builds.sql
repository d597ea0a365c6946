-- View models are built in versions, side by side (internal/processor: "Views are built beside
-- the one that answers"). Each build of a view has tables of its own, in a schema of its own,
-- filled from the start of the log under a processor of its own (its lease, its checkpoint):
-- view@n, or the view's own name for its first build. Reads go to the newest build that has
-- caught up with the log, of a version the reader's code reads; a build that no longer answers
-- is dropped once no replica reads it.
--
-- The first build of each view is the view as it was before builds: its tables are those the
-- earlier migrations made (catalog_books, loans_books, holds and holds_books), where they made
-- them (schema_name NULL), and its processor is the view's own, whose checkpoint it keeps. So
-- this migration rebuilds nothing. Every later build's tables are made, by the code of its
-- version, in the schema view_<view>_<n>, when its builder first holds its lease.

-- +goose Up
CREATE TABLE view_builds (
    view        text        NOT NULL CHECK (view ~ '^[a-z][a-z0-9_]{0,40}$'),
    build       integer     NOT NULL CHECK (build > 0),
    -- The version of the view's code that builds it.
    version     integer     NOT NULL CHECK (version > 0),
    -- building: not caught up yet, read by nobody; answering: the newest build to have caught
    -- up; retired: caught up once and outranked since, read only by replicas whose code can't
    -- read the answering build; dropped: its tables are gone (the row stays, so that no later
    -- build takes its number, and so its name, its lease and its schema).
    state       text        NOT NULL CHECK (state IN ('building', 'answering', 'retired', 'dropped')),
    -- Its lease's and its checkpoint's name (processor.Build.Name).
    processor   text        NOT NULL GENERATED ALWAYS AS
        (CASE WHEN build = 1 THEN view ELSE view || '@' || build::text END) STORED,
    -- Where its tables are: NULL for a view's first build, whose tables the migrations made.
    schema_name text        CHECK (schema_name ~ '^view_[a-z][a-z0-9_]*_[0-9]+$'),
    -- Whether its tables were made.
    created     boolean     NOT NULL DEFAULT false,
    started_at  timestamptz NOT NULL DEFAULT now(),
    answered_at timestamptz,
    retired_at  timestamptz,
    dropped_at  timestamptz,
    PRIMARY KEY (view, build)
);

-- At most one build of a view builds, and one answers.
CREATE UNIQUE INDEX view_builds_building ON view_builds (view) WHERE state = 'building';
CREATE UNIQUE INDEX view_builds_answering ON view_builds (view) WHERE state = 'answering';

-- Which build of each view each replica's process reads, said again every quarter of the
-- drop delay (processor.Options.DropAfter): a retired build is dropped only when no row fresher
-- than that names it.
CREATE TABLE view_readers (
    reader  text        NOT NULL,
    view    text        NOT NULL,
    build   integer     NOT NULL,
    seen_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reader, view)
);

INSERT INTO view_builds (view, build, version, state, created, answered_at) VALUES
    ('catalog', 1, 1, 'answering', true, now()),
    ('loans', 1, 1, 'answering', true, now()),
    ('holds', 1, 1, 'answering', true, now());

-- The schema of a build's tables. The service sends only constant statements, and a schema's
-- name can't be a statement's parameter: this function quotes it.
-- +goose StatementBegin
CREATE FUNCTION view_builds_make_schema(build_schema text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF build_schema !~ '^view_[a-z][a-z0-9_]*_[0-9]+$' THEN
        RAISE EXCEPTION 'not the schema of a view''s build: %', build_schema;
    END IF;
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', build_schema);
END
$$;
-- +goose StatementEnd

-- Drops a build's tables: its schema, or, for a view's first build, the tables the migrations
-- made for it.
-- +goose StatementBegin
CREATE FUNCTION view_builds_drop_tables(build_view text, build_schema text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF build_schema IS NOT NULL THEN
        IF build_schema !~ '^view_[a-z][a-z0-9_]*_[0-9]+$' THEN
            RAISE EXCEPTION 'not the schema of a view''s build: %', build_schema;
        END IF;
        EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', build_schema);
    ELSIF build_view = 'catalog' THEN
        DROP TABLE IF EXISTS catalog_books;
    ELSIF build_view = 'loans' THEN
        DROP TABLE IF EXISTS loans_books;
    ELSIF build_view = 'holds' THEN
        DROP TABLE IF EXISTS holds, holds_books;
    ELSE
        RAISE EXCEPTION 'the first build of the % view has no tables of the migrations', build_view;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- The builds' schemas are left as they are, and the first builds' tables as they are, if
-- they are still there: after a rebuild, the migrations before this one can't be rolled back.
DROP FUNCTION view_builds_drop_tables(text, text);
DROP FUNCTION view_builds_make_schema(text);
DROP TABLE view_readers;
DROP TABLE view_builds;
