package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/pgtest"
)

// planLog appends events $1 to $2 in one transaction: two in three CopyAdded, the others
// TitleAdded, as a log of many titles' copies has them.
const planLog = `
INSERT INTO events (stream_id, version, type, data)
SELECT 'title-' || i, 1, CASE WHEN i % 3 = 0 THEN 'TitleAdded' ELSE 'CopyAdded' END, '{}'
FROM generate_series($1::int, $2::int) AS i`

// planLogOf is a database whose log holds 60,000 events of planLog, analysed, and the
// transaction of the event at position 30,000.
func planLogOf(t *testing.T) (*pgxpool.Pool, uint64) {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	for lo := 1; lo <= 60_000; lo += 1000 {
		_, err := pool.Exec(ctx, planLog, lo, lo+999)
		require.NoError(t, err)
	}
	_, err := pool.Exec(ctx, `ANALYZE events`)
	require.NoError(t, err)
	var txID uint64
	require.NoError(t, pool.QueryRow(ctx, `SELECT transaction_id::text::bigint FROM events WHERE position = 30000`).Scan(&txID))
	return pool, txID
}

// A read of types from the middle of a long log scans events_type_order once for each type,
// those with no event after the checkpoint included, and never the log's global order filtered
// by type, which would read every event after the checkpoint for each type that has few; and
// reads whole, by position, only the events it returns.
func TestReadTypesScansEachTypesOwnRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, txID := planLogOf(t)

	rows, err := pool.Query(ctx, `EXPLAIN (ANALYZE, COSTS OFF) `+readTypesSQL, txID, 30000,
		[]string{"TitleAdded", "CopyAdded", "BookLent", "HoldExpired", "TrapExpired"}, 100)
	require.NoError(t, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	plan := strings.Join(lines, "\n")
	t.Logf("%s", plan)
	require.Regexp(t, `Index (Only )?Scan using events_type_order`, plan)
	require.NotContains(t, plan, "events_global_order")
	require.NotContains(t, plan, "Rows Removed by Filter")
	require.Regexp(t, `Index Scan using events_pkey on events( events_[0-9]+)? \(actual time=[0-9.]+ rows=1 loops=100\)`, plan,
		"the 100 events returned are read whole, and only they")
	require.NotContains(t, plan, "Hash", "never a join over the whole log")
}

// A count of the events of types after a checkpoint counts each type's range of
// events_type_order, never every event after the checkpoint.
func TestCountAfterCountsEachTypesOwnRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, txID := planLogOf(t)

	rows, err := pool.Query(ctx, `EXPLAIN (ANALYZE, COSTS OFF) `+countTypesAfterSQL, txID, 30000, []string{"TitleAdded", "BookLent"}, nil)
	require.NoError(t, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	plan := strings.Join(lines, "\n")
	t.Logf("%s", plan)
	require.Contains(t, plan, "on events_type_order")
	require.NotContains(t, plan, "events_global_order")
	require.NotContains(t, plan, "Rows Removed by Filter")
	var n int64
	require.NoError(t, pool.QueryRow(ctx, countTypesAfterSQL, txID, 30000, []string{"TitleAdded", "BookLent"}, nil).Scan(&n))
	require.Equal(t, int64(10_000), n, "a third of the 30,000 events after the checkpoint are titles")
}
