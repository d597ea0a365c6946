package core

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// A tally is the smallest aggregate that can show the runner's rules: it counts what was added.

type added struct {
	N int `json:"n"`
}

func (added) EventType() string { return "Added" }

type tally struct{ total int }

func tallyType() Type[tally] {
	return Type[tally]{
		Name:   "tally",
		New:    func() tally { return tally{} },
		Apply:  func(s tally, e Event) tally { s.total += e.(added).N; return s },
		Events: []Codec{EventCodec[added]()},
		Clone:  func(s tally) tally { return s },
	}
}

// add is a command that adds n; n == 0 records nothing and n < 0 is refused.
func add(n int, key string) Command[tally] {
	return Command[tally]{
		Name:    "add",
		Origin:  Origin{CommandID: key, CorrelationID: "request-" + key},
		Payload: map[string]int{"n": n},
		Decide: func(tally) ([]Event, error) {
			switch {
			case n < 0:
				return nil, errs.E(errs.InvalidRequest, "n must not be negative")
			case n == 0:
				return nil, nil
			}
			return []Event{added{N: n}}, nil
		},
	}
}

func newTallies(t *testing.T, opts Options) (*Repository[tally], *eventstore.Memory) {
	t.Helper()
	store := eventstore.NewMemory(nil)
	return NewRepository(store, tallyType(), opts), store
}

func TestExecuteRecordsEventsWithTheirCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})

	result, err := repo.Execute(ctx, "a", add(3, "key-1"))
	require.NoError(t, err)
	require.False(t, result.Replayed)
	require.Equal(t, "tally-a", result.StreamID)
	require.Equal(t, int64(1), result.Version)
	require.Len(t, result.Events, 1)
	require.Equal(t, "Added", result.Events[0].Type)
	require.Equal(t, added{N: 3}, result.Events[0].Data)

	stored, err := store.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Len(t, stored, 1)
	require.Equal(t, "key-1", stored[0].Metadata.CommandID)
	require.Equal(t, "add", stored[0].Metadata.Command)
	require.Equal(t, "request-key-1", stored[0].Metadata.CorrelationID)
	require.NotEmpty(t, stored[0].Metadata.Fingerprint)
}

func TestExecuteWithoutAKeyRecordsNoCommandID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	for range 2 {
		result, err := repo.Execute(ctx, "a", add(1, ""))
		require.NoError(t, err)
		require.False(t, result.Replayed, "without a key, a repeat is a new command")
	}
	stored, err := store.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Len(t, stored, 2)
	for _, e := range stored {
		require.Empty(t, e.Metadata.CommandID)
		require.Equal(t, "add", e.Metadata.Command, "the name and fingerprint are kept")
		require.NotEmpty(t, e.Metadata.Fingerprint)
	}
}

func TestLoadRefusesUnknownEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	_, err := store.Append(ctx, "tally-a", 0, []eventstore.NewEvent{{Type: "Renamed", Data: json.RawMessage(`{}`)}})
	require.NoError(t, err)
	_, err = repo.Load(ctx, "a")
	require.True(t, errs.Is(err, errs.Internal))
}

func TestExecutePassesOnStoreErrors(t *testing.T) {
	t.Parallel()
	repo, _ := newTallies(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := repo.Execute(ctx, "a", add(1, "k"))
	require.True(t, errors.Is(err, context.Canceled))
}
