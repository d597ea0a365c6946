package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// appendAllChecks are the checks of AppendAll, in Contract.
var appendAllChecks = []check{
	{"AppendAllWritesEveryPartInOneTransaction", contractAppendAllWritesEveryPart},
	{"AppendAllWritesNothingWhenOnePartConflicts", contractAppendAllWritesNothingOnConflict},
	{"AppendAllRejectsMalformedInput", contractAppendAllRejectsMalformedInput},
	{"AppendAllRacesAppendOnASharedStream", contractAppendAllRacesAppend},
}

func contractAppendAllWritesEveryPart(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	_, err := s.Append(ctx, "account-ann", 0, Events("AccountOpened"))
	require.NoError(t, err)
	got, err := s.AppendAll(ctx, []eventstore.StreamAppend{
		{StreamID: "book-1", ExpectedVersion: 0, Events: Events("BookAdded", "BookLent")},
		{StreamID: "account-ann", ExpectedVersion: 1, Events: Events("LoanOpened")},
	})
	require.NoError(t, err)
	require.Len(t, got, 2, "one answer per part, in the order of the parts")
	require.Equal(t, []string{"BookAdded", "BookLent"}, TypesOf(got[0]))
	require.Equal(t, []int64{1, 2}, []int64{got[0][0].Version, got[0][1].Version})
	require.Equal(t, "account-ann", got[1][0].StreamID)
	require.Equal(t, int64(2), got[1][0].Version)
	require.Equal(t, got[0][0].TransactionID, got[1][0].TransactionID, "one transaction for every part")

	all := ReadAllEventually(t, s, eventstore.Checkpoint{}, 4)
	require.Equal(t, []string{"AccountOpened", "BookAdded", "BookLent", "LoanOpened"}, slices.Sorted(slices.Values(TypesOf(all))))
	for _, streamID := range []string{"book-1", "account-ann"} {
		read, err := s.ReadStream(ctx, streamID, 0)
		require.NoError(t, err)
		for i, e := range read {
			require.Equal(t, int64(i+1), e.Version, "%s has no gap", streamID)
		}
	}
}

func contractAppendAllWritesNothingOnConflict(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	_, err := s.Append(ctx, "account-ann", 0, Events("AccountOpened", "MemberErased"))
	require.NoError(t, err)
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		parts := []eventstore.StreamAppend{
			{StreamID: "book-1", ExpectedVersion: 0, Events: Events("BookAdded")},
			{StreamID: "account-ann", ExpectedVersion: 1, Events: Events("LoanOpened")}, // it is at 2
		}
		_, err = s.AppendAll(ctx, []eventstore.StreamAppend{parts[order[0]], parts[order[1]]})
		var conflict *eventstore.ConflictError
		require.ErrorAs(t, err, &conflict)
		require.Equal(t, "account-ann", conflict.StreamID, "the conflict names the stream that moved on")
		require.Equal(t, int64(1), conflict.ExpectedVersion)
		read, err := s.ReadStream(ctx, "book-1", 0)
		require.NoError(t, err)
		require.Empty(t, read, "nothing of the other part is written, whichever part comes first")
	}
}

func contractAppendAllRejectsMalformedInput(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	for name, parts := range map[string][]eventstore.StreamAppend{
		"no part":         nil,
		"a stream twice":  {{StreamID: "s", Events: Events("A")}, {StreamID: "s", ExpectedVersion: 1, Events: Events("B")}},
		"a part's events": {{StreamID: "s", Events: Events("A")}, {StreamID: "t"}},
	} {
		_, err := s.AppendAll(ctx, parts)
		require.Error(t, err, name)
	}
	read, err := s.ReadStream(ctx, "s", 0)
	require.NoError(t, err)
	require.Empty(t, read)
}

// contractAppendAllRacesAppend runs writes that span two streams against lone appends to one
// of them, all at one version: exactly one of each round wins, and a lost AppendAll leaves
// nothing behind in its other stream.
func contractAppendAllRacesAppend(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	const rounds = 20
	for round := range rounds {
		var wg sync.WaitGroup
		var spanning, lone error
		book := fmt.Sprintf("book-%d", round)
		wg.Go(func() {
			_, spanning = s.AppendAll(ctx, []eventstore.StreamAppend{
				{StreamID: book, ExpectedVersion: 0, Events: Events("BookLent")},
				{StreamID: "account-ann", ExpectedVersion: int64(round), Events: Events("LoanOpened")},
			})
		})
		wg.Go(func() {
			_, lone = s.Append(ctx, "account-ann", int64(round), Events("MemberErased"))
		})
		wg.Wait()
		require.True(t, (spanning == nil) != (lone == nil), "round %d: exactly one wins (%v, %v)", round, spanning, lone)
		read, err := s.ReadStream(ctx, book, 0)
		require.NoError(t, err)
		if spanning != nil {
			require.ErrorAs(t, spanning, new(*eventstore.ConflictError))
			require.Empty(t, read, "round %d: a lost AppendAll writes nothing", round)
		} else {
			require.ErrorAs(t, lone, new(*eventstore.ConflictError))
			require.Len(t, read, 1)
		}
	}
	read, err := s.ReadStream(ctx, "account-ann", 0)
	require.NoError(t, err)
	require.Len(t, read, rounds)
}
