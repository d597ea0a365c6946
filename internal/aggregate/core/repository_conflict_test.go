package core

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// conflictingLog appends a competing event to the same stream just before each of the first
// `races` appends, as another replica would.
type conflictingLog struct {
	*eventstore.Memory
	races atomic.Int32
}

func (l *conflictingLog) Append(ctx context.Context, streamID string, expected int64, events []eventstore.NewEvent) ([]eventstore.Event, error) {
	if l.races.Add(-1) >= 0 {
		competitor := []eventstore.NewEvent{{Type: "Added", Data: json.RawMessage(`{"n":100}`),
			Metadata: eventstore.Metadata{CommandID: fmt.Sprintf("competitor-%d", l.races.Load())}}}
		if _, err := l.Memory.Append(ctx, streamID, expected, competitor); err != nil {
			return nil, err
		}
	}
	return l.Memory.Append(ctx, streamID, expected, events)
}

func TestExecuteDecidesAgainAfterAConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &conflictingLog{Memory: eventstore.NewMemory(nil)}
	log.races.Store(2)
	repo := NewRepository(log, tallyType(), Options{})

	result, err := repo.Execute(ctx, "a", add(1, "mine"))
	require.NoError(t, err)
	require.Equal(t, int64(3), result.Version, "written after the two competing events")
	loaded, err := repo.Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 201, loaded.State.total)
}

func TestExecuteGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &conflictingLog{Memory: eventstore.NewMemory(nil)}
	log.races.Store(1000)
	repo := NewRepository(log, tallyType(), Options{MaxAttempts: 3})

	_, err := repo.Execute(ctx, "a", add(1, "mine"))
	require.True(t, errs.Is(err, errs.ConcurrencyConflict), "got %v", err)
	stored, err := log.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Len(t, stored, 3, "only the competitors' events")
}

// When the competing append carries the same command id, the retry answers with its events.
func TestExecuteAfterAConflictFindsItsOwnKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	// Another replica ran the same request first; this one had loaded version 0.
	racer := &keyRacingLog{Memory: store, run: func() {
		_, err := NewRepository(store, tallyType(), Options{}).Execute(ctx, "a", add(7, "same"))
		require.NoError(t, err)
	}}
	repo := NewRepository(racer, tallyType(), Options{})

	result, err := repo.Execute(ctx, "a", add(7, "same"))
	require.NoError(t, err)
	require.True(t, result.Replayed)
	stored, err := store.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Len(t, stored, 1)
}

type keyRacingLog struct {
	*eventstore.Memory
	run  func()
	once atomic.Bool
}

func (l *keyRacingLog) Append(ctx context.Context, streamID string, expected int64, events []eventstore.NewEvent) ([]eventstore.Event, error) {
	if l.once.CompareAndSwap(false, true) {
		l.run()
	}
	return l.Memory.Append(ctx, streamID, expected, events)
}
