package core

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPrepareReadsTheOtherStreamBeforeEachDecision decides on what Prepare read of another
// stream, and writes there at that version: a decision made on what that stream was is never
// appended. Each command here takes the other tally's next number: however many race, on as
// many streams, every number is taken once.
func TestPrepareReadsTheOtherStreamBeforeEachDecision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	others := NewRepository(store, tallyType(), Options{})
	take := func() Command[tally] {
		var next int
		var version int64
		return Command[tally]{Name: "take", Payload: "take",
			Prepare: func(ctx context.Context, _ tally) error {
				other, err := others.Load(ctx, "other")
				next, version = other.State.total+1, other.Version
				return err
			},
			Decide: func(tally) ([]Event, error) { return []Event{added{N: next}}, nil },
			Also: func(context.Context, []Event) (Also, error) {
				return Also{StreamID: "tally-other", ExpectedVersion: version, Events: []Event{added{N: 1}}, Codecs: tallyType().Events}, nil
			},
		}
	}
	const racers = 8
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			_, err := repo.Execute(ctx, string(rune('a'+i)), take())
			require.NoError(t, err)
		})
	}
	wg.Wait()
	taken := map[string]bool{}
	for i := range racers {
		mine, err := store.ReadStream(ctx, "tally-"+string(rune('a'+i)), 0)
		require.NoError(t, err)
		require.Len(t, mine, 1)
		require.False(t, taken[string(mine[0].Data)], "number %s taken twice", mine[0].Data)
		taken[string(mine[0].Data)] = true
	}
	other, err := store.ReadStream(ctx, "tally-other", 0)
	require.NoError(t, err)
	require.Len(t, other, racers)
}
