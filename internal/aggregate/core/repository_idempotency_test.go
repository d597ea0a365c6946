package core

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

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

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
