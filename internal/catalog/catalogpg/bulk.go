package catalogpg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"library/internal/pgerr"
	"library/internal/processor"
)

// A build's catch-up in bulk (processor.BulkWriter): while it is far behind the log, its
// trigram indexes (catalog_books_search, catalog_titles_search) and the titles' B-trees are
// dropped, and made again, each whole, once it has caught up. Keeping them up to date is most
// of what writing a book or a title costs, and making one whole costs a fraction of keeping it
// up to date over as many rows as it indexes: so the bulk pays once at least as many events
// wait as the build's tables hold rows (and DefaultBulkFrom, for tables that are small).
// Meanwhile a search, and a page of titles, read the tables without the index: the same rows,
// found more slowly.

// DefaultBulkFrom is the fewest events a build of the catalog catches up in bulk.
const DefaultBulkFrom = 100_000

var _ processor.BulkWriter = build{}

// rowsSQL is about how many rows the build's tables hold: PostgreSQL's estimate, kept up to
// date by autovacuum and by CREATE INDEX, or none for a table never counted.
const rowsSQL = `
SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)::bigint FROM pg_class c
WHERE c.oid IN (to_regclass('catalog_books'), to_regclass('catalog_titles'))`

// BulkFrom implements processor.BulkWriter: the rows of the build's tables, and at least
// DefaultBulkFrom (or what the catalog was given, WithBulkFrom).
func (b build) BulkFrom(ctx context.Context) (int64, error) {
	var rows int64
	err := b.writes.InTx(ctx, func(tx pgx.Tx) error {
		return pgerr.Translate(ctx, tx.QueryRow(ctx, rowsSQL).Scan(&rows), "the catalog")
	})
	if err != nil {
		return 0, err
	}
	return max(rows, b.bulkFrom), nil
}

// StartBulk implements processor.BulkWriter: it drops the build's trigram indexes, named
// in its tables' schema alone: a name on the whole search path would go on, once this build's
// index was dropped, to the first build's of the same name.
func (b build) StartBulk(ctx context.Context, at processor.Position) error {
	return b.writes.AtCheckpoint(ctx, at, func(tx pgx.Tx) error {
		var path string
		if err := tx.QueryRow(ctx, tablesSchemaOnlySQL).Scan(&path); err != nil {
			return fmt.Errorf("the schema of the catalog's tables: %w", err)
		}
		if _, err := tx.Exec(ctx, `DROP INDEX IF EXISTS catalog_books_search`); err != nil {
			return fmt.Errorf("dropping the books' search index: %w", err)
		}
		if !b.titles {
			return nil
		}
		if _, err := tx.Exec(ctx, dropTitlesIndexesSQL); err != nil {
			return fmt.Errorf("dropping the titles' indexes: %w", err)
		}
		return nil
	})
}

// dropTitlesIndexesSQL drops the titles' indexes, all but the primary key.
const dropTitlesIndexesSQL = `DROP INDEX IF EXISTS catalog_titles_search, catalog_titles_order, catalog_titles_available,
	catalog_titles_isbn`

// tablesSchemaOnlySQL makes the schema of the build's catalog_books the whole search path, for
// the rest of the transaction.
const tablesSchemaOnlySQL = `
SELECT set_config('search_path', quote_ident(n.nspname), true)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = 'catalog_books'::regclass`

// makeBooksSearchSQL makes the books' trigram index in the schema of its table, unless it is
// there; makeTitlesIndexesSQL the titles' indexes, their trigram index first, on one core:
// the books' index, the longest to make, is made on another meanwhile.
const (
	makeBooksSearchSQL   = `CREATE INDEX IF NOT EXISTS ` + booksSearchIndex
	makeTitlesIndexesSQL = `SET LOCAL max_parallel_maintenance_workers = 0;
CREATE INDEX IF NOT EXISTS ` + titlesSearchIndex + `;
CREATE INDEX IF NOT EXISTS ` + titlesOrderIndex + `;
CREATE INDEX IF NOT EXISTS ` + titlesAvailableIndex + `;
CREATE INDEX IF NOT EXISTS ` + titlesISBNIndex
)

// EndBulk implements processor.BulkWriter: it makes each index the build lacks, the books' and
// the titles' side by side, each table's in a transaction of its own.
func (b build) EndBulk(ctx context.Context, at processor.Position) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return b.writes.AtCheckpoint(ctx, at, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, makeBooksSearchSQL); err != nil {
				return fmt.Errorf("making the books' search index: %w", err)
			}
			return nil
		})
	})
	if b.titles {
		g.Go(func() error {
			return b.writes.AtCheckpoint(ctx, at, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, makeTitlesIndexesSQL); err != nil {
					return fmt.Errorf("making the titles' indexes: %w", err)
				}
				return nil
			})
		})
	}
	return g.Wait()
}
