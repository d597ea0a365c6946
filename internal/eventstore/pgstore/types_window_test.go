package pgstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/storetest"
)

// A read of types where they are most of the log scans events_global_order once and stops when
// it has found as many as it may return: it neither scans by type nor reads events by position.
// So does a read of data.
func TestReadTypesWhereTheyAreDenseScansTheLogOnce(t *testing.T) {
	t.Parallel()
	pool, txID := planLogOf(t)
	for _, statement := range []string{windowSQL, windowDataSQL} {
		checkDenseWindowPlan(t, pool, statement, txID)
	}
}

// checkDenseWindowPlan checks the plan of statement, windowSQL or its read of data.
func checkDenseWindowPlan(t *testing.T, pool *pgxpool.Pool, statement string, txID uint64) {
	plan := explain(t, pool, statement, txID, 30000, []string{"TitleAdded", "CopyAdded", "BookLent"}, 100, 300)
	require.Contains(t, plan, "Index Scan using events_global_order")
	require.Regexp(t, `Index Scan using events_global_order on events \(actual time=[0-9.]+\.\.[0-9.]+ rows=10[0-2] loops=1\)`, plan,
		"it stops at the 100 events it returns (and the one more it asks for, and one the row numbers look ahead at)")
	require.NotContains(t, plan, "events_type_order")
	require.NotContains(t, plan, "events_pkey")
	require.NotContains(t, plan, "Sort")
}

// Paged through with every limit, for types dense, sparse and absent in stretches of the log,
// a read of types returns what the memory store returns: each event of those types once, in
// order, whether the window found them all, ended first and the scans by type went on after
// it, or met the read horizon.
func TestReadTypesPagesAsTheMemoryStoreDoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg, memory := newPostgres(t, pgtest.NewPool(t)), eventstore.NewMemory(nil)
	var kinds []string
	for i := range 90 {
		switch {
		case i < 30: // dense: A and B
			kinds = append(kinds, []string{"A", "A", "B"}[i%3])
		case i < 60: // sparse: a C in ten
			kinds = append(kinds, map[bool]string{true: "C", false: "A"}[i%10 == 0])
		default:
			kinds = append(kinds, []string{"B", "C", "A", "A", "A", "A"}[i%6])
		}
	}
	for i, kind := range kinds {
		for _, s := range []eventstore.Store{pg, memory} {
			_, err := s.Append(ctx, fmt.Sprintf("s-%d", i), 0, storetest.Events(kind))
			require.NoError(t, err)
		}
	}
	storetest.ReadAllEventually(t, pg, eventstore.Checkpoint{}, len(kinds))
	for _, types := range [][]string{{"A"}, {"B"}, {"C"}, {"B", "C"}, {"A", "B", "C"}, {"D"}, {"C", "D"}} {
		for _, limit := range []int{1, 2, 3, 5, 8, 40, 0} {
			want := pageThrough(t, memory, types, limit)
			require.Equal(t, want, pageThrough(t, pg, types, limit), "types %v, limit %d", types, limit)
		}
	}
}

// pageThrough reads the events of types from the log's start, limit at a time, each read from
// the last one's Through, until a read finds fewer than limit; it returns their streams.
func pageThrough(t *testing.T, s eventstore.Store, types []string, limit int) []string {
	t.Helper()
	var streams []string
	from := eventstore.Checkpoint{}
	for {
		page, err := s.ReadTypes(context.Background(), from, limit, types)
		require.NoError(t, err)
		require.False(t, page.Through.Before(from), "Through never moves back")
		for _, e := range page.Events {
			require.True(t, from.Before(e.Checkpoint()))
			streams = append(streams, e.StreamID+":"+e.Type)
			from = e.Checkpoint()
		}
		if limit <= 0 || len(page.Events) < limit {
			return streams
		}
		require.Equal(t, from, page.Through, "a full page looked as far as its last event")
	}
}

// A read of types with a limit, which looks at a window of the log first, holds an event back
// while a transaction older than its own is still open, as ReadAll does: it never returns the
// later event first and moves past the late one.
func TestReadTypesNeverSkipsALateCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := newPostgres(t, pool)
	slow := lateCommit(t, pool, s)

	types := []string{"Slow", "Fast"}
	page, err := s.ReadTypes(ctx, eventstore.Checkpoint{}, 10, types)
	require.NoError(t, err)
	require.Empty(t, page.Events, "nothing is readable while an older transaction is still open")
	require.Equal(t, eventstore.Checkpoint{}, page.Through)

	require.NoError(t, slow.Commit(ctx))
	storetest.ReadAllEventually(t, s, eventstore.Checkpoint{}, 2)
	page, err = s.ReadTypes(ctx, eventstore.Checkpoint{}, 10, types)
	require.NoError(t, err)
	require.Equal(t, types, storetest.TypesOf(page.Events), "in the order of their transactions")
}
