package eventstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapshotStore is a log with snapshots, as both stores are.
type snapshotStore interface {
	Store
	Snapshots
	VersionReader
}

// forgetFunc makes the log lose the stream's events after version keep, as a restore of an
// older backup of the log would, and keeps the snapshots as they were. It returns the store to
// go on with.
type forgetFunc func(t *testing.T, s snapshotStore, streamID string, keep int64) snapshotStore

// testSnapshots is the suite of Snapshots and VersionReader that both stores must pass.
func testSnapshots(t *testing.T, newStore func(t *testing.T) snapshotStore, forget forgetFunc) {
	t.Run("SaveAndLoad", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 5)
		saved := snapshotAt(written[2], 1)
		require.NoError(t, s.SaveSnapshot(ctx, saved))

		got, tail, err := s.LoadStream(ctx, "loan-1", 1)
		require.NoError(t, err)
		require.Equal(t, &saved, got)
		want, err := s.ReadStream(ctx, "loan-1", 3)
		require.NoError(t, err)
		require.Equal(t, want, tail, "the events after the snapshot, as ReadStream reads them")
		require.Equal(t, written[3].Metadata, tail[0].Metadata, "metadata and actor are read")

		atHead := snapshotAt(written[4], 1)
		atHead.State, atHead.Window = nil, nil
		require.NoError(t, s.SaveSnapshot(ctx, atHead))
		got, tail, err = s.LoadStream(ctx, "loan-1", 1)
		require.NoError(t, err)
		require.Equal(t, int64(5), got.Version)
		require.Equal(t, []byte{}, got.State, "no bytes read back as empty")
		require.Equal(t, []byte{}, got.Window)
		require.NotNil(t, tail)
		require.Empty(t, tail)
	})

	t.Run("LoadWithoutASnapshotReadsEveryEvent", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 3)
		got, tail, err := s.LoadStream(ctx, "loan-1", 1)
		require.NoError(t, err)
		require.Nil(t, got)
		require.Equal(t, versionsOf(written), versionsOf(tail))

		got, tail, err = s.LoadStream(ctx, "nobody", 1)
		require.NoError(t, err)
		require.Nil(t, got)
		require.NotNil(t, tail)
		require.Empty(t, tail)
	})

	t.Run("ASnapshotOfAnotherSchemaVersionIsIgnored", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 4)
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[3], 1)))
		got, tail, err := s.LoadStream(ctx, "loan-1", 2)
		require.NoError(t, err)
		require.Nil(t, got)
		require.Equal(t, []int64{1, 2, 3, 4}, versionsOf(tail))

		// Another schema version replaces the stored one, even at a lower version.
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[1], 2)))
		requireSnapshot(t, s, "loan-1", 2, 2)
		requireSnapshot(t, s, "loan-1", 1, 0)
	})

	t.Run("ASaveNeverMovesBack", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 8)
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[3], 1)))
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[1], 1)), "a slow writer is not an error")
		requireSnapshot(t, s, "loan-1", 1, 4)
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[3], 1)))
		requireSnapshot(t, s, "loan-1", 1, 4)

		var wg sync.WaitGroup
		for _, e := range written {
			wg.Go(func() { assert.NoError(t, s.SaveSnapshot(ctx, snapshotAt(e, 1))) })
		}
		wg.Wait()
		requireSnapshot(t, s, "loan-1", 1, 8)
	})

	t.Run("ASnapshotThatIsNotOfTheLogIsRefused", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 3)
		other := appendStream(t, s, "loan-2", 1)
		ahead := snapshotAt(written[2], 1)
		ahead.Version, ahead.Position = 4, written[2].Position+100
		for name, snap := range map[string]Snapshot{
			"ahead of the log":          ahead,
			"at another position":       {StreamID: "loan-1", Version: 2, Position: written[0].Position, SchemaVersion: 1},
			"at another stream's":       {StreamID: "loan-1", Version: 1, Position: other[0].Position, SchemaVersion: 1},
			"of a stream with no event": {StreamID: "nobody", Version: 1, Position: written[0].Position, SchemaVersion: 1},
		} {
			require.ErrorIs(t, s.SaveSnapshot(ctx, snap), ErrSnapshotMismatch, name)
		}
		require.Error(t, s.SaveSnapshot(ctx, Snapshot{Version: 1, Position: written[0].Position}), "no stream id")
		require.Error(t, s.SaveSnapshot(ctx, Snapshot{StreamID: "loan-1"}), "version 0")
		requireSnapshot(t, s, "loan-1", 1, 0)
		requireSnapshot(t, s, "nobody", 1, 0)
	})

	t.Run("ASnapshotTheLogNoLongerHasIsIgnored", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 5)
		appendStream(t, s, "loan-2", 1)
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[4], 1)))

		s = forget(t, s, "loan-1", 3)
		got, tail, err := s.LoadStream(ctx, "loan-1", 1)
		require.NoError(t, err)
		require.Nil(t, got, "the event at the snapshot's version is gone")
		require.Equal(t, []int64{1, 2, 3}, versionsOf(tail))

		// The stream grows again: another history, with other events at the same versions.
		again, err := s.Append(ctx, "loan-1", 3, events("Again4", "Again5"))
		require.NoError(t, err)
		require.NotEqual(t, written[4].Position, again[1].Position)
		got, tail, err = s.LoadStream(ctx, "loan-1", 1)
		require.NoError(t, err)
		require.Nil(t, got, "the event at the snapshot's version is at another position")
		require.Equal(t, []int64{1, 2, 3, 4, 5}, versionsOf(tail))

		// A snapshot of the log as it is now replaces the stale one, even at a lower version.
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(again[0], 1)))
		requireSnapshot(t, s, "loan-1", 1, 4)
	})

	t.Run("ReadVersions", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 5)
		appendStream(t, s, "loan-2", 2)
		for _, c := range []struct {
			from, to int64
			want     []int64
		}{{2, 4, []int64{2, 3, 4}}, {1, 1, []int64{1}}, {4, 10, []int64{4, 5}}, {0, 1, []int64{1}}, {6, 9, []int64{}}, {3, 2, []int64{}}} {
			got, err := s.ReadVersions(ctx, "loan-1", c.from, c.to)
			require.NoError(t, err)
			require.Equal(t, c.want, versionsOf(got), "%d to %d", c.from, c.to)
		}
		got, err := s.ReadVersions(ctx, "loan-1", 2, 3)
		require.NoError(t, err)
		require.Equal(t, written[1].Metadata, got[0].Metadata)
		require.Equal(t, written[2].Position, got[1].Position)
		none, err := s.ReadVersions(ctx, "nobody", 1, 10)
		require.NoError(t, err)
		require.NotNil(t, none)
		require.Empty(t, none)
	})

	t.Run("DeleteSnapshot", func(t *testing.T) {
		t.Parallel()
		ctx, s := context.Background(), newStore(t)
		written := appendStream(t, s, "loan-1", 2)
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[1], 1)))
		require.NoError(t, s.DeleteSnapshot(ctx, "loan-1"))
		requireSnapshot(t, s, "loan-1", 1, 0)
		require.NoError(t, s.DeleteSnapshot(ctx, "loan-1"), "none to delete is not an error")
		require.NoError(t, s.SaveSnapshot(ctx, snapshotAt(written[0], 1)), "a lower version after a delete")
		requireSnapshot(t, s, "loan-1", 1, 1)
	})

	t.Run("SnapshotsWithACancelledContext", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _, err := s.LoadStream(ctx, "x", 1)
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, s.SaveSnapshot(ctx, Snapshot{StreamID: "x", Version: 1, Position: 1}), context.Canceled)
		require.ErrorIs(t, s.DeleteSnapshot(ctx, "x"), context.Canceled)
		_, err = s.ReadVersions(ctx, "x", 1, 2)
		require.ErrorIs(t, err, context.Canceled)
	})
}

// appendStream appends n events to a new stream, one append each, with metadata that names an
// actor, and returns them.
func appendStream(t *testing.T, s Store, streamID string, n int) []Event {
	t.Helper()
	var out []Event
	for i := range n {
		meta := Metadata{CommandID: fmt.Sprintf("cmd-%d", i+1), Command: "lend",
			Actor: Actor{Subject: "u-1", Role: "librarian", Issuer: "https://idp.example"}}
		got, err := s.Append(context.Background(), streamID, int64(i),
			[]NewEvent{{Type: fmt.Sprintf("E%d", i+1), Data: json.RawMessage(`{"n":1}`), Metadata: meta}})
		require.NoError(t, err)
		out = append(out, got...)
	}
	return out
}

// snapshotAt is a snapshot of e's stream up to e.
func snapshotAt(e Event, schemaVersion int) Snapshot {
	return Snapshot{StreamID: e.StreamID, Version: e.Version, Position: e.Position, SchemaVersion: schemaVersion,
		State: fmt.Appendf(nil, "state@%d", e.Version), Window: fmt.Appendf(nil, "window@%d", e.Version)}
}

// requireSnapshot checks the version of the stream's snapshot of schemaVersion that LoadStream
// returns, 0 for none, and that the events after it come with it.
func requireSnapshot(t *testing.T, s snapshotStore, streamID string, schemaVersion int, version int64) {
	t.Helper()
	got, tail, err := s.LoadStream(context.Background(), streamID, schemaVersion)
	require.NoError(t, err)
	after := int64(0)
	if got != nil {
		after = got.Version
		require.Equal(t, fmt.Appendf(nil, "state@%d", got.Version), got.State)
	}
	require.Equal(t, version, after, "the snapshot's version")
	all, err := s.ReadStream(context.Background(), streamID, after)
	require.NoError(t, err)
	require.Equal(t, versionsOf(all), versionsOf(tail))
}

func versionsOf(events []Event) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Version
	}
	return out
}
