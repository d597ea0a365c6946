package catalogpg

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/testkit/pgtest"
)

// planTitles fills catalog_titles with n titles whose titles, authors and subjects are made of
// words from short lists of coprime lengths, so that two words from different lists are in few
// titles; each has an ISBN of its own, and one in five has a copy on the shelf.
const planTitles = `
INSERT INTO catalog_titles (title_id, title, authors, isbn, subjects, sort_title, search_text,
  copies_total, copies_available, holds_waiting, copies, holds)
SELECT id, title, ARRAY[author], isbn, ARRAY[subject], lower(title), lower(title || E'\x1f' || author || E'\x1f' || subject),
  3, CASE WHEN i % 5 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 5 = 0 THEN 0 ELSE 2 END, '[]', '[]'
FROM (
  SELECT i, 't' || lpad(i::text, 6, '0') AS id, '978' || lpad(i::text, 10, '0') AS isbn,
    (ARRAY['Silent','Broken','Hidden','Golden','Frozen','Crimson','Distant','Burning','Wandering','Secret','Lost'])[1 + i % 11]
      || ' ' || (ARRAY['River','Garden','Empire','Mirror','Harbour','Forest','Kingdom','Letters','Orchard','Station','Island','Country','Lantern'])[1 + i % 13] AS title,
    (ARRAY['Anna','Peter','Maria','John','Elena','Tomás','Ingrid','Kenji','Amara','Lucas','Sofia','Omar','Greta','Ivan','Chloé','Mateo','Leila'])[1 + i % 17]
      || ' ' || (ARRAY['Smith','Okafor','Nakamura','García','Larsen','Kowalski','Dubois','Rossi','Haddad','Schmidt','Novak','Silva','Kim','Andersson','Müller','Costa','Ivanova','Murphy','Fischer'])[1 + i % 19] AS author,
    (ARRAY['History','Poetry','Travel','Cookery','Gardening','Science','Music'])[1 + i % 7] AS subject
  FROM generate_series(1, $1::int) AS i
) AS t`

// The plans PostgreSQL makes for the titles' queries on 20,000 titles: a page without search
// reads the order index and stops (no sort of the table), with or without a cursor; a page of
// titles on the shelf reads the partial index of them in order; a search's walk reads the order
// index, at most its bound; a search through the indexes uses the trigram index, and, when it
// is an ISBN, the isbn index beside it.
func TestCatalogTitlesPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	_, err := pool.Exec(ctx, titlesSQL) // as a build of version 2 makes it, here in the search path's first schema
	require.NoError(t, err)
	_, err = pool.Exec(ctx, planTitles, 20_000)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `VACUUM ANALYZE catalog_titles`)
	require.NoError(t, err)

	explain := func(sql string, f catalog.TitleFilter, probe int) string {
		return pgtest.Plan(t, pool, fmt.Sprintf("%+v", f), `EXPLAIN `+sql, titlesArgs(f, probe)...)
	}
	parse := func(q, available string) catalog.TitleFilter {
		f, err := catalog.ParseTitleFilter(q, available, "", "")
		require.NoError(t, err)
		return f
	}
	after := catalog.TitleKey{Sort: "golden forest", ID: "t010000"}
	for _, f := range []catalog.TitleFilter{{}, {After: after}, {Limit: catalog.MaxPageSize}} {
		plan := explain(titlesPageQuery, f, 0)
		require.Contains(t, plan, "Index Scan using catalog_titles_order")
		require.NotContains(t, plan, "Sort")
	}
	for _, f := range []catalog.TitleFilter{{Available: true}, {Available: true, After: after}} {
		plan := explain(titlesPageQuery, f, 0)
		require.Contains(t, plan, "Index Scan using catalog_titles_available")
		require.NotContains(t, plan, "Sort")
	}
	for _, q := range []string{"golden", "frozen müller"} {
		f := parse(q, "")
		plan := explain(titlesProbeQuery, f, probeRows(f))
		require.Contains(t, plan, "Index Scan using catalog_titles_order", q)
		require.NotContains(t, plan, "Seq Scan", q)
		f = parse(q, "true")
		require.Contains(t, explain(titlesProbeQuery, f, probeRows(f)), "Index Scan using catalog_titles_available", q)
	}
	for _, q := range []string{"frozen müller", "Kenji HARBOUR poetry", "golden orchard chloé", "golden"} {
		require.Contains(t, explain(titlesSearchQuery, parse(q, ""), 0), "Bitmap Index Scan on catalog_titles_search", q)
	}
	plan := explain(titlesSearchQuery, parse("978-0-00-001234-0", ""), 0) // title t012340's
	require.Contains(t, plan, "Bitmap Index Scan on catalog_titles_isbn")
	require.Contains(t, plan, "Bitmap Index Scan on catalog_titles_search")
}
