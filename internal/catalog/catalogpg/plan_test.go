package catalogpg

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/testkit/pgtest"
)

// planBooks fills catalog_books with n books whose titles and authors are made of words from
// short lists of coprime lengths, so that two words from different lists are in few books; one
// book in ten is lent, and one in fifty on the hold shelf.
const planBooks = `
INSERT INTO catalog_books (book_id, title, author, version, loan_id, member_id, lent_at, due_at, held_by, held_until)
SELECT 'b' || lpad(i::text, 6, '0'),
  (ARRAY['Silent','Broken','Hidden','Golden','Frozen','Crimson','Distant','Burning','Wandering','Secret','Lost'])[1 + i % 11]
    || ' ' || (ARRAY['River','Garden','Empire','Mirror','Harbour','Forest','Kingdom','Letters','Orchard','Station','Island','Country','Lantern'])[1 + i % 13],
  (ARRAY['Anna','Peter','Maria','John','Elena','Tomás','Ingrid','Kenji','Amara','Lucas','Sofia','Omar','Greta','Ivan','Chloé','Mateo','Leila'])[1 + i % 17]
    || ' ' || (ARRAY['Smith','Okafor','Nakamura','García','Larsen','Kowalski','Dubois','Rossi','Haddad','Schmidt','Novak','Silva','Kim','Andersson','Müller','Costa','Ivanova','Murphy','Fischer'])[1 + i % 19],
  1,
  CASE WHEN i % 10 = 0 THEN 'loan-' || i END, CASE WHEN i % 10 = 0 THEN 'm1' END,
  CASE WHEN i % 10 = 0 THEN now() END, CASE WHEN i % 10 = 0 THEN now() END,
  CASE WHEN i % 50 = 5 THEN 'tag' END, CASE WHEN i % 50 = 5 THEN now() END
FROM generate_series(1, $1::int) AS i`

// The plans PostgreSQL makes for pageQuery on a catalog of 20,000 books: a page without search
// reads the primary key in order and stops (no sort of the table), with or without a cursor; a
// page of lent books reads the partial index of loans in order, one of held books that of
// the hold shelf, and one of lost books that of the copies on no shelf; a search of two words
// uses the trigram index. A build older than catalog.MissingFrom is read as before.
func TestCatalogPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	_, err := pool.Exec(ctx, missingSQL) // the first build's table, as a build of this version has it
	require.NoError(t, err)
	_, err = pool.Exec(ctx, planBooks, 20_000)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE catalog_books SET missing = 'lost', loan_id = NULL, member_id = NULL, lent_at = NULL, due_at = NULL
WHERE book_id LIKE '%37'`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `VACUUM ANALYZE catalog_books`)
	require.NoError(t, err)

	for _, query := range []string{pageQuery, pageQueryBefore} {
		plans(t, pool, query)
	}
	lost := catalog.Filter{Status: "lost"}
	plan := pgtest.Plan(t, pool, fmt.Sprintf("%+v", lost), `EXPLAIN `+pageQuery, pageArgs(lost)...)
	require.Contains(t, plan, "Index Scan using catalog_books_missing")
}

// plans checks the plans of query, a page's, for every filter but the copies on no shelf.
func plans(t *testing.T, pool *pgxpool.Pool, query string) {
	t.Helper()
	explain := func(f catalog.Filter) string {
		return pgtest.Plan(t, pool, fmt.Sprintf("%+v", f), `EXPLAIN `+query, pageArgs(f)...)
	}
	for _, f := range []catalog.Filter{{}, {After: "b010000"}, {Limit: catalog.MaxPageSize}} {
		plan := explain(f)
		require.Contains(t, plan, "Index Scan using catalog_books_pkey")
		require.NotContains(t, plan, "Sort")
	}
	plan := explain(catalog.Filter{Status: "lent"})
	require.Contains(t, plan, "Index Scan using catalog_books_lent")
	require.NotContains(t, plan, "Sort")
	plan = explain(catalog.Filter{Status: "held"})
	require.Contains(t, plan, "Index Scan using catalog_books_held")
	require.NotContains(t, plan, "Sort")
	for _, q := range []string{"frozen müller", "Kenji HARBOUR", "golden orchard chloé"} {
		words, err := catalog.ParseSearch(q)
		require.NoError(t, err)
		require.Contains(t, explain(catalog.Filter{Words: words}), "Bitmap Index Scan on catalog_books_search")
	}
}
