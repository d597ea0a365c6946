package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// typeChecks are the suite's checks of reads, counts and wake-ups by event type.
var typeChecks = []check{
	{"ReadTypesReturnsThoseTypesAndLooksPastTheRest", contractReadTypes},
	{"CountAfterCountsThoseTypes", contractCountAfterTypes},
	{"SubscribeToTypesWakesForThoseTypes", contractSubscribeToTypes},
}

// appendTypes appends one event of each type, in order, to new streams of their own, and
// returns them as recorded.
func appendTypes(t *testing.T, s eventstore.Store, types ...string) []eventstore.Event {
	t.Helper()
	var out []eventstore.Event
	for _, typ := range types {
		got, err := s.Append(context.Background(), fmt.Sprintf("t-%d", time.Now().UnixNano()), 0, Events(typ))
		require.NoError(t, err)
		out = append(out, got...)
	}
	return out
}

func contractReadTypes(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	all := appendTypes(t, s, "A", "B", "A", "B", "B", "C", "A", "B")
	ReadAllEventually(t, s, eventstore.Checkpoint{}, len(all))

	page, err := s.ReadTypes(ctx, eventstore.Checkpoint{}, 0, []string{"A", "C"})
	require.NoError(t, err)
	require.Equal(t, []string{"A", "A", "C", "A"}, TypesOf(page.Events))
	require.Equal(t, all[7].Checkpoint(), page.Through, "fewer than the limit: it looked to the end")

	// In pages of two from each page's Through: the same events, once, and the last page looks
	// past the B at the end.
	var paged []eventstore.Event
	from := eventstore.Checkpoint{}
	for {
		page, err := s.ReadTypes(ctx, from, 2, []string{"A", "C"})
		require.NoError(t, err)
		require.False(t, page.Through.Before(from), "Through never moves back")
		paged = append(paged, page.Events...)
		if len(page.Events) < 2 {
			require.Equal(t, all[7].Checkpoint(), page.Through)
			break
		}
		require.Equal(t, page.Events[1].Checkpoint(), page.Through, "a full page looked as far as its last event")
		from = page.Through
	}
	require.Equal(t, TypesOf(page.Events), TypesOf(paged))

	none, err := s.ReadTypes(ctx, all[6].Checkpoint(), 10, []string{"A"})
	require.NoError(t, err)
	require.Empty(t, none.Events)
	require.Equal(t, all[7].Checkpoint(), none.Through, "only other types after it: it looks past them")

	every, err := s.ReadTypes(ctx, eventstore.Checkpoint{}, 3, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"A", "B", "A"}, TypesOf(every.Events), "no types: every type")
	require.Equal(t, all[2].Checkpoint(), every.Through)
}

func contractCountAfterTypes(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	all := appendTypes(t, s, "A", "B", "A", "B", "B")
	n, err := s.CountAfter(ctx, all[0].Checkpoint(), "A")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = s.CountAfter(ctx, all[0].Checkpoint(), "A", "B")
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	n, err = s.CountAfter(ctx, all[0].Checkpoint())
	require.NoError(t, err)
	require.EqualValues(t, 4, n, "no types: every type")
	for _, c := range []struct {
		atMost, want int64
		types        []string
	}{{2, 2, []string{"B"}}, {3, 3, nil}, {5, 3, []string{"B"}}, {0, 3, []string{"B"}}, {1, 1, []string{"A", "B"}}, {1, 0, []string{"C"}}} {
		n, err = s.CountAfterUpTo(ctx, all[0].Checkpoint(), c.atMost, c.types...)
		require.NoError(t, err)
		require.EqualValues(t, c.want, n, "up to %d of %v", c.atMost, c.types)
	}
}

func contractSubscribeToTypes(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	s := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readsA := s.Subscribe(ctx, "A")
	readsAll := s.Subscribe(ctx)
	drain := func(ch <-chan struct{}) {
		for {
			select {
			case <-ch:
			default:
				return
			}
		}
	}
	drain(readsA)
	drain(readsAll)
	appendTypes(t, s, "B")
	select {
	case <-readsAll:
	case <-time.After(10 * time.Second):
		t.Fatal("a subscriber of every type was not woken by a B")
	}
	// An A after the B: the subscriber of A wakes for the A. Whether the B woke it too (a
	// store may wake more readers than it must, never fewer) is told by the store's own tests.
	appendTypes(t, s, "A")
	select {
	case <-readsA:
	case <-time.After(10 * time.Second):
		t.Fatal("a subscriber of A was not woken by an A")
	}
}
