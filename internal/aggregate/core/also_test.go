package core

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// addAlso is add, with the same amount added to another tally, "other", in the same append,
// at the version of other that Also reads when asked; a negative total there refuses it.
func addAlso(n int, key string, others *Repository[tally], asked *atomic.Int32) Command[tally] {
	cmd := add(n, key)
	cmd.Also = func(ctx context.Context, decided []Event) (Also, error) {
		asked.Add(1)
		other, err := others.Load(ctx, "other")
		if err != nil {
			return Also{}, err
		}
		if other.State.total < 0 {
			return Also{}, errs.E(errs.Gone, "the other tally is closed")
		}
		return Also{StreamID: "tally-other", ExpectedVersion: other.Version, Events: decided, Codecs: tallyType().Events}, nil
	}
	return cmd
}

func TestAlsoWritesBothStreamsInOneAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	others := NewRepository(store, tallyType(), Options{})
	var asked atomic.Int32

	result, err := repo.Execute(ctx, "x", addAlso(2, "k1", others, &asked))
	require.NoError(t, err)
	require.Len(t, result.Events, 1, "the result is the command's own stream's")
	other, err := store.ReadStream(ctx, "tally-other", 0)
	require.NoError(t, err)
	require.Len(t, other, 1)
	require.Empty(t, other[0].Metadata.CommandID, "the other stream's window is not the command's to fill")
	require.Equal(t, "add", other[0].Metadata.Command)
	mine, err := store.ReadStream(ctx, "tally-x", 0)
	require.NoError(t, err)
	require.Equal(t, mine[0].TransactionID, other[0].TransactionID)

	again, err := repo.Execute(ctx, "x", addAlso(2, "k1", others, &asked))
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.Equal(t, int32(1), asked.Load(), "a repeat is answered from the command's stream, and writes nowhere")
}

func TestAlsoIsAskedAgainWhenTheOtherStreamMovedOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	others := NewRepository(store, tallyType(), Options{})
	var asked atomic.Int32
	cmd := add(1, "")
	stale := true
	cmd.Also = func(ctx context.Context, decided []Event) (Also, error) {
		asked.Add(1)
		other, err := others.Load(ctx, "other")
		if err != nil {
			return Also{}, err
		}
		if stale {
			// Another writer appends to the other stream between this read and the append.
			stale = false
			_, err := store.Append(ctx, "tally-other", other.Version, []eventstore.NewEvent{{Type: "Added", Data: []byte(`{"n":-5}`)}})
			require.NoError(t, err)
		}
		if other.State.total < 0 {
			return Also{}, errs.E(errs.Gone, "the other tally is closed")
		}
		return Also{StreamID: "tally-other", ExpectedVersion: other.Version, Events: decided, Codecs: tallyType().Events}, nil
	}
	_, err := repo.Execute(ctx, "x", cmd)
	require.Equal(t, errs.Gone, errs.CodeOf(err), "decided again on what the other stream became")
	require.Equal(t, int32(2), asked.Load())
	mine, err := store.ReadStream(ctx, "tally-x", 0)
	require.NoError(t, err)
	require.Empty(t, mine, "the first append failed whole, the second was refused")
}

// TestAlsoRacesTheOtherStreamsWriters runs commands with Also on many streams against a
// command on the other stream alone that closes it: whatever the order, nothing is added to the
// other stream after it was closed, and every command that succeeded wrote both streams.
func TestAlsoRacesTheOtherStreamsWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	closeIt := Command[tally]{Name: "close", Payload: "close",
		Decide: func(tally) ([]Event, error) { return []Event{added{N: -1000}}, nil }}
	for range 50 {
		repo, store := newTallies(t, Options{})
		others := NewRepository(store, tallyType(), Options{})
		var asked atomic.Int32
		var wg sync.WaitGroup
		outcomes := make([]error, 4)
		for i := range outcomes {
			wg.Go(func() { _, outcomes[i] = repo.Execute(ctx, string(rune('a'+i)), addAlso(1, "", others, &asked)) })
		}
		wg.Go(func() {
			_, err := others.Execute(ctx, "other", closeIt)
			require.NoError(t, err)
		})
		wg.Wait()
		other, err := store.ReadStream(ctx, "tally-other", 0)
		require.NoError(t, err)
		closedAt := -1
		for i, e := range other {
			if string(e.Data) == `{"n":-1000}` {
				closedAt = i
			}
		}
		require.Equal(t, len(other)-1, closedAt, "nothing is added after the close: %d events", len(other))
		succeeded := 0
		for _, err := range outcomes {
			if err == nil {
				succeeded++
				continue
			}
			require.Equal(t, errs.Gone, errs.CodeOf(err))
		}
		require.Equal(t, succeeded, len(other)-1, "each success wrote the other stream once")
	}
}

// Also.More spans further streams: every part with events is written in the one append, a
// part without events is left out, and a move on any of them sends the command back to be
// decided again, with Also asked again.
func TestAlsoMoreWritesEveryStreamInOneAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	others := NewRepository(store, tallyType(), Options{})
	var asked atomic.Int32
	cmd := add(1, "k1")
	moved := false
	cmd.Also = func(ctx context.Context, decided []Event) (Also, error) {
		asked.Add(1)
		var parts [3]Also
		for i, id := range []string{"one", "two", "none"} {
			other, err := others.Load(ctx, id)
			if err != nil {
				return Also{}, err
			}
			parts[i] = Also{StreamID: "tally-" + id, ExpectedVersion: other.Version, Events: decided, Codecs: tallyType().Events}
		}
		parts[2].Events = nil
		if !moved {
			// Another writer appends to the last stream with events between this read and the append.
			moved = true
			_, err := store.Append(ctx, "tally-two", parts[1].ExpectedVersion, []eventstore.NewEvent{{Type: "Added", Data: []byte(`{"n":5}`)}})
			require.NoError(t, err)
		}
		parts[0].More = []Also{{More: []Also{parts[1], parts[2]}}}
		return parts[0], nil
	}

	_, err := repo.Execute(ctx, "x", cmd)
	require.NoError(t, err)
	require.Equal(t, int32(2), asked.Load(), "asked again once the stream it read had moved on")
	mine, err := store.ReadStream(ctx, "tally-x", 0)
	require.NoError(t, err)
	require.Len(t, mine, 1)
	for stream, want := range map[string]int{"tally-one": 1, "tally-two": 2, "tally-none": 0} {
		events, err := store.ReadStream(ctx, stream, 0)
		require.NoError(t, err)
		require.Len(t, events, want, stream)
		if want > 0 {
			last := events[len(events)-1]
			require.Equal(t, mine[0].TransactionID, last.TransactionID, "%s is written in the command's append", stream)
			require.Empty(t, last.Metadata.CommandID, stream)
		}
	}
}
