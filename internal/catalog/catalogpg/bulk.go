package catalogpg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"library/internal/processor"
)

// A build's catch-up in bulk (processor.BulkWriter): while it is far behind the log, its
// trigram indexes (catalog_books_search, catalog_titles_search) are dropped, and made again,
// each whole, once it has caught up. Keeping them up to date is most of what writing a book or
// a title costs, and making one whole costs a fraction of keeping it up to date over as many
// rows as it indexes: so the bulk pays once at least as many events wait as the build's tables
// hold rows (and DefaultBulkFrom, for tables that are small). Meanwhile a search reads the
// tables without the index: the same rows, found more slowly.

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
		return tx.QueryRow(ctx, rowsSQL).Scan(&rows)
	})
	if err != nil {
		return 0, err
	}
	return max(rows, b.bulkFrom), nil
}

// StartBulk implements processor.BulkWriter: it drops the build's trigram indexes.
func (b build) StartBulk(ctx context.Context, at processor.Position) error {
	return b.writes.AtCheckpoint(ctx, at, func(tx pgx.Tx) error {
		for _, index := range b.searchIndexes() {
			// Named in the table's schema: a name alone would go on down the search path, to
			// the first build's index of the same name once this build's was dropped.
			var name string
			err := tx.QueryRow(ctx, `SELECT quote_ident(n.nspname) || '.' || $2 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE c.oid = $1::regclass`, index.table, index.name).Scan(&name)
			if err != nil {
				return fmt.Errorf("the schema of %s: %w", index.table, err)
			}
			if _, err := tx.Exec(ctx, `DROP INDEX IF EXISTS `+name); err != nil {
				return fmt.Errorf("dropping %s: %w", name, err)
			}
		}
		return nil
	})
}

// EndBulk implements processor.BulkWriter: it makes each trigram index the build lacks, the
// books' and the titles' side by side, each in a transaction of its own.
func (b build) EndBulk(ctx context.Context, at processor.Position) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, index := range b.searchIndexes() {
		g.Go(func() error {
			return b.writes.AtCheckpoint(ctx, at, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `CREATE INDEX IF NOT EXISTS `+index.definition); err != nil {
					return fmt.Errorf("making %s: %w", index.name, err)
				}
				return nil
			})
		})
	}
	return g.Wait()
}

// searchIndex is one of a build's trigram indexes.
type searchIndex struct{ table, name, definition string }

// searchIndexes are the trigram indexes of the build's tables.
func (b build) searchIndexes() []searchIndex {
	indexes := []searchIndex{{"catalog_books", "catalog_books_search", booksSearchIndex}}
	if b.titles {
		indexes = append(indexes, searchIndex{"catalog_titles", "catalog_titles_search", titlesSearchIndex})
	}
	return indexes
}
