package holdspg

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/holds"
	"library/internal/testkit/pgtest"
)

// planHolds fills the holds tables with $1 books, each with a holder on the shelf one time in
// five and up to four members waiting.
const planHolds = `
WITH b AS (INSERT INTO holds_books (book_id, title) SELECT 'b' || lpad(i::text, 6, '0'), 'Title ' || i FROM generate_series(1, $1::int) AS i
  RETURNING book_id)
INSERT INTO holds (book_id, seq, member_id, placed_at, held_until)
SELECT b.book_id, s, 'm' || (s * 7919 + length(b.book_id)) % 5000, now(),
  CASE WHEN s = 1 AND right(b.book_id, 1) IN ('0', '5') THEN now() + (s || ' days')::interval END
FROM b, generate_series(1, 4) AS s`

// The plans PostgreSQL makes for the pages on 20,000 books' holds: everyone's holds read the
// primary key in order and stop, with or without a cursor, the waiting ones the partial index of
// the queues, and the hold shelf its own; a member's holds their index; no page sorts the
// table, and a place is counted on the index of the queues.
func TestHoldsPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	_, err := pool.Exec(ctx, planHolds, 20_000)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `VACUUM ANALYZE holds, holds_books`)
	require.NoError(t, err)

	explain := func(f holds.Filter) string {
		query, args := queueQuery, queueArgs(f)
		if f.Shelf() {
			query, args = shelfQuery, shelfArgs(f)
		}
		return pgtest.Plan(t, pool, fmt.Sprintf("%+v", f), `EXPLAIN `+query, args...)
	}
	for f, index := range map[*holds.Filter]string{
		{}: "holds_pkey", {After: &holds.Key{BookID: "b010000", Seq: 2}}: "holds_pkey", {Status: holds.Waiting, Limit: holds.MaxPageSize}: "holds_waiting",
	} {
		plan := explain(*f)
		require.Contains(t, plan, "Index Scan using "+index+" on holds h")
		require.Contains(t, plan, "Index Only Scan using holds_waiting on holds q")
		require.NotContains(t, plan, "Sort")
	}
	plan := explain(holds.Filter{Status: holds.Ready})
	require.Contains(t, plan, "Index Scan using holds_shelf")
	require.NotContains(t, plan, "Sort")
	plan = explain(holds.Filter{MemberID: "m42", Limit: holds.MaxPageSize})
	require.Contains(t, plan, "holds_member")
}
