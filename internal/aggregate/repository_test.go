package aggregate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
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

// Only keyed commands take places in the window of remembered keys: however many commands
// without a key follow a keyed one, its retry is still answered from the log, not run again.
func TestKeylessCommandsDoNotPushKeysOutOfTheWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, cached := range []int{0, -1} {
		repo, _ := newTallies(t, Options{CommandIDsPerStream: 3, CacheBytes: cached})
		first, err := repo.Execute(ctx, "a", add(5, "pay-1"))
		require.NoError(t, err)
		for range 50 {
			_, err := repo.Execute(ctx, "a", add(1, ""))
			require.NoError(t, err)
		}
		again, err := repo.Execute(ctx, "a", add(5, "pay-1"))
		require.NoError(t, err)
		require.True(t, again.Replayed, "cache %d: the keyed command is still remembered", cached)
		require.Equal(t, first.Position, again.Position)

		for i := range 3 { // three keyed commands do push it out
			_, err := repo.Execute(ctx, "a", add(1, fmt.Sprintf("other-%d", i)))
			require.NoError(t, err)
		}
		late, err := repo.Execute(ctx, "a", add(5, "pay-1"))
		require.NoError(t, err)
		require.False(t, late.Replayed, "cache %d: out of the window, it is a new command", cached)
	}
}

// A repeat with the same key, command and payload is answered from the log, byte for byte.
func TestExecuteReplaysTheFirstAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	first, err := repo.Execute(ctx, "a", add(5, "pay-once"))
	require.NoError(t, err)
	_, err = repo.Execute(ctx, "a", add(1, "other"))
	require.NoError(t, err)

	again, err := repo.Execute(ctx, "a", add(5, "pay-once"))
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.Equal(t, mustJSON(t, first), mustJSON(t, again))

	stored, err := store.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Len(t, stored, 2, "the replay wrote nothing")
}

func TestExecuteRefusesAKeyReusedForAnotherCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	_, err := repo.Execute(ctx, "a", add(5, "k"))
	require.NoError(t, err)

	_, err = repo.Execute(ctx, "a", add(6, "k"))
	require.True(t, errs.Is(err, errs.IdempotencyKeyReused), "another payload: %v", err)
	require.Contains(t, err.Error(), `"add"`)

	other := add(5, "k")
	other.Name = "subtract"
	_, err = repo.Execute(ctx, "a", other)
	require.True(t, errs.Is(err, errs.IdempotencyKeyReused), "another command: %v", err)
	require.Contains(t, err.Error(), `first used for the command "add"`)

	// Keys are per stream: the same key on another stream is another command.
	result, err := repo.Execute(ctx, "b", add(6, "k"))
	require.NoError(t, err)
	require.False(t, result.Replayed)

	stored, err := store.ReadAll(ctx, eventstore.Checkpoint{}, 0)
	require.NoError(t, err)
	require.Len(t, stored, 2)
}

// Only the last CommandIDsPerStream commands are remembered.
func TestExecuteRemembersTheLastCommandsOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, _ := newTallies(t, Options{CommandIDsPerStream: 3})
	for i := range 4 {
		_, err := repo.Execute(ctx, "a", add(1, fmt.Sprintf("k%d", i)))
		require.NoError(t, err)
	}
	// k1, k2 and k3 are the last three commands.
	for _, key := range []string{"k1", "k2", "k3"} {
		result, err := repo.Execute(ctx, "a", add(1, key))
		require.NoError(t, err)
		require.True(t, result.Replayed, key)
	}
	// k0 has been forgotten, so it runs again.
	result, err := repo.Execute(ctx, "a", add(1, "k0"))
	require.NoError(t, err)
	require.False(t, result.Replayed)
	require.Equal(t, int64(5), result.Version)

	loaded, err := repo.Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 5, loaded.State.total)
}

// A keyed command that decides nothing is recorded as NothingChanged, so its retry gets the
// first answer; without a key it leaves no trace; a refused command leaves its key free.
func TestExecuteRemembersKeyedCommandsThatChangedNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	_, err := repo.Execute(ctx, "a", add(2, "first"))
	require.NoError(t, err)

	nothing, err := repo.Execute(ctx, "a", add(0, "noop"))
	require.NoError(t, err)
	require.False(t, nothing.Recorded())
	require.Equal(t, int64(2), nothing.Version, "the marker is the stream's second event")
	require.NotNil(t, nothing.Events)
	require.Empty(t, nothing.Events)

	_, err = repo.Execute(ctx, "a", add(5, "later"))
	require.NoError(t, err)
	again, err := repo.Execute(ctx, "a", add(0, "noop"))
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.Equal(t, mustJSON(t, nothing), mustJSON(t, again))
	_, err = repo.Execute(ctx, "a", add(1, "noop"))
	require.True(t, errs.Is(err, errs.IdempotencyKeyReused), "the key is taken: %v", err)

	unkeyed, err := repo.Execute(ctx, "a", add(0, ""))
	require.NoError(t, err)
	require.Equal(t, int64(3), unkeyed.Version, "without a key nothing is written")

	stored, err := store.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"Added", NothingChanged, "Added"}, typesOf(stored))
	require.Equal(t, "noop", stored[1].Metadata.CommandID)
	loaded, err := repo.Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 7, loaded.State.total, "the marker changes no state")
	require.Equal(t, int64(3), loaded.Version)

	_, err = repo.Execute(ctx, "a", add(-1, "retry-me"))
	require.True(t, errs.Is(err, errs.InvalidRequest))
	result, err := repo.Execute(ctx, "a", add(4, "retry-me"))
	require.NoError(t, err, "a refused command leaves its key free")
	require.True(t, result.Recorded())
}

// On an empty stream there is nothing a retry could undo, so nothing is written.
func TestExecuteWritesNoMarkerOnAnEmptyStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	result, err := repo.Execute(ctx, "a", add(0, "noop"))
	require.NoError(t, err)
	require.Equal(t, int64(0), result.Version)
	stored, err := store.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Empty(t, stored)
}

func typesOf(events []eventstore.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

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
	repo := NewRepository(store, tallyType(), Options{})
	// Another replica ran the same request first; this one had loaded version 0.
	racer := &keyRacingLog{Memory: store, run: func() {
		_, err := NewRepository(store, tallyType(), Options{}).Execute(ctx, "a", add(7, "same"))
		require.NoError(t, err)
	}}
	repo.log = racer

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

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
