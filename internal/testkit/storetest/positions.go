package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// Positions is the suite of Head, Locate, LastPosition and CountAfter that every eventstore.Store must pass.
func Positions(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Run("HeadLocateAndCountAfterFollowTheGlobalOrder", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		head, err := s.Head(ctx)
		require.NoError(t, err)
		require.Equal(t, eventstore.Checkpoint{}, head, "an empty log's head is the start")
		_, err = s.Locate(ctx, 1)
		require.True(t, errs.Is(err, errs.NotFound), "no event yet: %v", err)

		first, err := s.Append(ctx, "a", 0, Events("One", "Two"))
		require.NoError(t, err)
		second, err := s.Append(ctx, "b", 0, Events("Three"))
		require.NoError(t, err)

		head, err = s.Head(ctx)
		require.NoError(t, err)
		require.Equal(t, second[0].Checkpoint(), head)
		for _, e := range append(first, second...) {
			located, err := s.Locate(ctx, e.Position)
			require.NoError(t, err)
			require.Equal(t, e.Checkpoint(), located)
		}
		_, err = s.Locate(ctx, second[0].Position+1000)
		require.True(t, errs.Is(err, errs.NotFound), "a position past the head: %v", err)

		for after, want := range map[eventstore.Checkpoint]int64{
			{}:                     3,
			first[0].Checkpoint():  2,
			first[1].Checkpoint():  1,
			second[0].Checkpoint(): 0,
		} {
			n, err := s.CountAfter(ctx, after)
			require.NoError(t, err)
			require.Equal(t, want, n, "after %+v", after)
		}
	})
	t.Run("LastPositionIsTheLargestCommitted", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		last, err := s.LastPosition(ctx)
		require.NoError(t, err)
		require.Zero(t, last, "an empty log")

		first, err := s.Append(ctx, "a", 0, Events("One", "Two"))
		require.NoError(t, err)
		last, err = s.LastPosition(ctx)
		require.NoError(t, err)
		require.Equal(t, first[1].Position, last)
		second, err := s.Append(ctx, "b", 0, Events("Three"))
		require.NoError(t, err)
		_, err = s.Append(ctx, "a", 0, Events("Conflict"))
		require.ErrorAs(t, err, new(*eventstore.ConflictError))
		last, err = s.LastPosition(ctx)
		require.NoError(t, err)
		require.Equal(t, second[0].Position, last, "the last recorded; an append that failed records none")

		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err = s.LastPosition(cancelled)
		require.ErrorIs(t, err, context.Canceled)
	})
}
