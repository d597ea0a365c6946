package pgstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// planLog appends events $1 to $2 in one transaction: two in three CopyAdded, the others
// TitleAdded, as a log of many titles' copies has them.
const planLog = `
INSERT INTO events (stream_id, version, type, data)
SELECT 'title-' || i, 1, CASE WHEN i % 3 = 0 THEN 'TitleAdded' ELSE 'CopyAdded' END, '{}'
FROM generate_series($1::int, $2::int) AS i`

// planLogOf is a database whose log holds 60,000 events of planLog, analysed and below the read
// horizon, and the transaction of the event at position 30,000. The horizon is the server's:
// a test beside this one that holds a transaction open (lateCommit) holds it back, so the plans
// are looked at once it has passed the log's last event.
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
	drivertest.Eventually(t, 30*time.Second, func() bool {
		var below bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT max(transaction_id::text::bigint) < pg_snapshot_xmin(pg_current_snapshot())::text::bigint FROM events`).Scan(&below))
		return below
	}, "the log below the read horizon")
	var txID uint64
	require.NoError(t, pool.QueryRow(ctx, `SELECT transaction_id::text::bigint FROM events WHERE position = 30000`).Scan(&txID))
	return pool, txID
}

// A read of types from the middle of a long log scans events_type_order once for each type,
// those with no event after the checkpoint included, and never the log's global order filtered
// by type, which would read every event after the checkpoint for each type that has few; and
// reads whole, by position, only the events it returns. So does a read of data.
func TestReadTypesScansEachTypesOwnRange(t *testing.T) {
	t.Parallel()
	pool, txID := planLogOf(t)
	for _, statement := range []string{readTypesSQL, readTypesDataSQL} {
		checkByTypePlan(t, pool, statement, txID)
	}
}

// A read of older events scans events_type_order for each type, and passes over the newer
// there: none is read whole, nor joined with the log as a whole. (Every event of planLog is of
// schema version 1: a read below 1 finds none, below 2 all of them.)
func TestReadOlderScansEachTypesOwnRange(t *testing.T) {
	t.Parallel()
	pool, txID := planLogOf(t)
	for below, returned := range map[int]string{1: "rows=0 loops=1", 2: "rows=1 loops=100"} {
		plan := explain(t, pool, readOlderSQL, txID, 30000, []string{"TitleAdded", "CopyAdded", "BookLent"}, 100, below)
		require.Regexp(t, `Index Scan using events_type_order`, plan)
		require.NotContains(t, plan, "events_global_order")
		require.NotContains(t, plan, "Seq Scan")
		require.NotContains(t, plan, "Hash", "never a join over the whole log")
		require.Contains(t, plan, returned, "below %d: the events returned alone are read whole by position", below)
	}
}

// checkByTypePlan checks the plan of statement, readTypesSQL or its read of data.
func checkByTypePlan(t *testing.T, pool *pgxpool.Pool, statement string, txID uint64) {
	plan := explain(t, pool, statement, txID, 30000, []string{"TitleAdded", "CopyAdded", "BookLent", "HoldExpired", "TrapExpired"}, 100)
	require.Regexp(t, `Index (Only )?Scan using events_type_order`, plan)
	require.NotContains(t, plan, "events_global_order")
	require.NotContains(t, plan, "Rows Removed by Filter")
	require.Regexp(t, `Index Scan using events_pkey on events( events_[0-9]+)? \(actual time=[0-9.]+ rows=1 loops=100\)`, plan,
		"the 100 events returned are read whole, and only they")
	require.NotContains(t, plan, "Hash", "never a join over the whole log")
}

// A count of the events of types after a checkpoint counts each type's range of
// events_type_order, never every event after the checkpoint; with a limit too, and for a type
// with no event after the checkpoint, which a scan of the table filtered by type would read
// whole to find none of (at each view's check whether it has caught up, and at every /status).
func TestCountAfterCountsEachTypesOwnRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, txID := planLogOf(t)

	for _, c := range []struct {
		types []string
		limit *int64
		want  int64
	}{
		{[]string{"TitleAdded", "BookLent"}, nil, 10_000}, // a third of the 30,000 events after the checkpoint are titles
		{[]string{"TitleAdded", "BookLent"}, ptr(int64(100)), 100},
		{[]string{"BookLent", "HoldExpired"}, ptr(int64(1)), 0},
	} {
		plan := explain(t, pool, countTypesAfterSQL, txID, 30000, c.types, c.limit)
		require.Regexp(t, `(using|on) events_type_order`, plan)
		require.NotContains(t, plan, "Seq Scan")
		require.NotContains(t, plan, "events_global_order")
		require.NotContains(t, plan, "Rows Removed by Filter")
		var n int64
		require.NoError(t, pool.QueryRow(ctx, countTypesAfterSQL, txID, 30000, c.types, c.limit).Scan(&n))
		require.Equal(t, c.want, n)
	}
}

// A count of every event after a checkpoint near the log's end reads the events after it in
// events_global_order, not the table.
func TestCountAfterAllReadsTheGlobalOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := planLogOf(t)
	var txID uint64
	require.NoError(t, pool.QueryRow(ctx, `SELECT transaction_id::text::bigint FROM events WHERE position = 59990`).Scan(&txID))

	for _, limit := range []*int64{nil, ptr(int64(5)), ptr(int64(100))} {
		plan := explain(t, pool, countAfterSQL, txID, 59990, limit)
		require.NotContains(t, plan, "Seq Scan")
		var n int64
		require.NoError(t, pool.QueryRow(ctx, countAfterSQL, txID, 59990, limit).Scan(&n))
		want := int64(10)
		if limit != nil {
			want = min(want, *limit)
		}
		require.Equal(t, want, n)
	}
}

func ptr[T any](v T) *T { return &v }

// explain runs statement with args under EXPLAIN ANALYZE, logs its plan and returns it.
func explain(t *testing.T, pool *pgxpool.Pool, statement string, args ...any) string {
	t.Helper()
	return pgtest.Plan(t, pool, fmt.Sprint(args...), `EXPLAIN (ANALYZE, COSTS OFF) `+statement, args...)
}
