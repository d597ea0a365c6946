package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// SnapshotStore is a log with snapshots, as both stores are.
type SnapshotStore interface {
	eventstore.Store
	eventstore.Snapshots
	eventstore.VersionReader
}

// ForgetFunc makes the log lose the stream's events after version keep, as a restore of an
// older backup of the log would, and keeps the snapshots as they were. It returns the store to
// go on with.
type ForgetFunc func(t *testing.T, s SnapshotStore, streamID string, keep int64) SnapshotStore

// Snapshots is the suite of eventstore.Snapshots and eventstore.VersionReader that both stores
// must pass.
func Snapshots(t *testing.T, newStore func(t *testing.T) SnapshotStore, forget ForgetFunc) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, newStore func(t *testing.T) SnapshotStore, forget ForgetFunc)
	}{
		{"SaveAndLoad", snapshotsSaveAndLoad},
		{"LoadWithoutASnapshotReadsEveryEvent", snapshotsLoadWithoutASnapshotReadsEveryEvent},
		{"ASnapshotOfAnotherSchemaVersionIsIgnored", snapshotsASnapshotOfAnotherSchemaVersionIsIgnored},
		{"ASaveNeverMovesBack", snapshotsASaveNeverMovesBack},
		{"ASnapshotThatIsNotOfTheLogIsRefused", snapshotsASnapshotThatIsNotOfTheLogIsRefused},
		{"ASnapshotTheLogNoLongerHasIsIgnored", snapshotsASnapshotTheLogNoLongerHasIsIgnored},
		{"ReadVersions", snapshotsReadVersions},
		{"DeleteSnapshot", snapshotsDeleteSnapshot},
		{"SnapshotsWithACancelledContext", snapshotsSnapshotsWithACancelledContext},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, newStore, forget) })
	}
}

func snapshotsSaveAndLoad(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 5)
	saved := SnapshotAt(written[2], 1)
	require.NoError(t, s.SaveSnapshot(ctx, saved))

	got, tail, err := s.LoadStream(ctx, "loan-1", 1)
	require.NoError(t, err)
	require.Equal(t, &saved, got)
	want, err := s.ReadStream(ctx, "loan-1", 3)
	require.NoError(t, err)
	require.Equal(t, want, tail, "the events after the snapshot, as ReadStream reads them")
	require.Equal(t, written[3].Metadata, tail[0].Metadata, "metadata and actor are read")

	atHead := SnapshotAt(written[4], 1)
	atHead.State, atHead.Window = nil, nil
	require.NoError(t, s.SaveSnapshot(ctx, atHead))
	got, tail, err = s.LoadStream(ctx, "loan-1", 1)
	require.NoError(t, err)
	require.Equal(t, int64(5), got.Version)
	require.Equal(t, []byte{}, got.State, "no bytes read back as empty")
	require.Equal(t, []byte{}, got.Window)
	require.NotNil(t, tail)
	require.Empty(t, tail)
}

func snapshotsLoadWithoutASnapshotReadsEveryEvent(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 3)
	got, tail, err := s.LoadStream(ctx, "loan-1", 1)
	require.NoError(t, err)
	require.Nil(t, got)
	require.Equal(t, VersionsOf(written), VersionsOf(tail))

	got, tail, err = s.LoadStream(ctx, "nobody", 1)
	require.NoError(t, err)
	require.Nil(t, got)
	require.NotNil(t, tail)
	require.Empty(t, tail)
}

func snapshotsASnapshotOfAnotherSchemaVersionIsIgnored(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 4)
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[3], 1)))
	got, tail, err := s.LoadStream(ctx, "loan-1", 2)
	require.NoError(t, err)
	require.Nil(t, got)
	require.Equal(t, []int64{1, 2, 3, 4}, VersionsOf(tail))

	// Another schema version replaces the stored one, even at a lower version.
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[1], 2)))
	requireSnapshot(t, s, "loan-1", 2, 2)
	requireSnapshot(t, s, "loan-1", 1, 0)
}

func snapshotsASaveNeverMovesBack(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 8)
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[3], 1)))
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[1], 1)), "a slow writer is not an error")
	requireSnapshot(t, s, "loan-1", 1, 4)
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[3], 1)))
	requireSnapshot(t, s, "loan-1", 1, 4)

	var wg sync.WaitGroup
	for _, e := range written {
		wg.Go(func() { assert.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(e, 1))) })
	}
	wg.Wait()
	requireSnapshot(t, s, "loan-1", 1, 8)
}

func snapshotsASnapshotThatIsNotOfTheLogIsRefused(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 3)
	other := AppendStream(t, s, "loan-2", 1)
	ahead := SnapshotAt(written[2], 1)
	ahead.Version, ahead.Position = 4, written[2].Position+100
	for name, snap := range map[string]eventstore.Snapshot{
		"ahead of the log":          ahead,
		"at another position":       {StreamID: "loan-1", Version: 2, Position: written[0].Position, SchemaVersion: 1},
		"at another stream's":       {StreamID: "loan-1", Version: 1, Position: other[0].Position, SchemaVersion: 1},
		"of a stream with no event": {StreamID: "nobody", Version: 1, Position: written[0].Position, SchemaVersion: 1},
	} {
		require.ErrorIs(t, s.SaveSnapshot(ctx, snap), eventstore.ErrSnapshotMismatch, name)
	}
	require.Error(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Version: 1, Position: written[0].Position}), "no stream id")
	require.Error(t, s.SaveSnapshot(ctx, eventstore.Snapshot{StreamID: "loan-1"}), "version 0")
	requireSnapshot(t, s, "loan-1", 1, 0)
	requireSnapshot(t, s, "nobody", 1, 0)
}

func snapshotsASnapshotTheLogNoLongerHasIsIgnored(t *testing.T, newStore func(t *testing.T) SnapshotStore, forget ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 5)
	AppendStream(t, s, "loan-2", 1)
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[4], 1)))

	s = forget(t, s, "loan-1", 3)
	got, tail, err := s.LoadStream(ctx, "loan-1", 1)
	require.NoError(t, err)
	require.Nil(t, got, "the event at the snapshot's version is gone")
	require.Equal(t, []int64{1, 2, 3}, VersionsOf(tail))

	// The stream grows again: another history, with other events at the same versions.
	again, err := s.Append(ctx, "loan-1", 3, Events("Again4", "Again5"))
	require.NoError(t, err)
	require.NotEqual(t, written[4].Position, again[1].Position)
	got, tail, err = s.LoadStream(ctx, "loan-1", 1)
	require.NoError(t, err)
	require.Nil(t, got, "the event at the snapshot's version is at another position")
	require.Equal(t, []int64{1, 2, 3, 4, 5}, VersionsOf(tail))

	// A snapshot of the log as it is now replaces the stale one, even at a lower version.
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(again[0], 1)))
	requireSnapshot(t, s, "loan-1", 1, 4)
}

func snapshotsReadVersions(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 5)
	AppendStream(t, s, "loan-2", 2)
	for _, c := range []struct {
		from, to int64
		want     []int64
	}{{2, 4, []int64{2, 3, 4}}, {1, 1, []int64{1}}, {4, 10, []int64{4, 5}}, {0, 1, []int64{1}}, {6, 9, []int64{}}, {3, 2, []int64{}}} {
		got, err := s.ReadVersions(ctx, "loan-1", c.from, c.to)
		require.NoError(t, err)
		require.Equal(t, c.want, VersionsOf(got), "%d to %d", c.from, c.to)
	}
	got, err := s.ReadVersions(ctx, "loan-1", 2, 3)
	require.NoError(t, err)
	require.Equal(t, written[1].Metadata, got[0].Metadata)
	require.Equal(t, written[2].Position, got[1].Position)
	none, err := s.ReadVersions(ctx, "nobody", 1, 10)
	require.NoError(t, err)
	require.NotNil(t, none)
	require.Empty(t, none)
}

func snapshotsDeleteSnapshot(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	written := AppendStream(t, s, "loan-1", 2)
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[1], 1)))
	require.NoError(t, s.DeleteSnapshot(ctx, "loan-1"))
	requireSnapshot(t, s, "loan-1", 1, 0)
	require.NoError(t, s.DeleteSnapshot(ctx, "loan-1"), "none to delete is not an error")
	require.NoError(t, s.SaveSnapshot(ctx, SnapshotAt(written[0], 1)), "a lower version after a delete")
	requireSnapshot(t, s, "loan-1", 1, 1)
}

func snapshotsSnapshotsWithACancelledContext(t *testing.T, newStore func(t *testing.T) SnapshotStore, _ ForgetFunc) {
	t.Parallel()
	s := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := s.LoadStream(ctx, "x", 1)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, s.SaveSnapshot(ctx, eventstore.Snapshot{StreamID: "x", Version: 1, Position: 1}), context.Canceled)
	require.ErrorIs(t, s.DeleteSnapshot(ctx, "x"), context.Canceled)
	_, err = s.ReadVersions(ctx, "x", 1, 2)
	require.ErrorIs(t, err, context.Canceled)
}

// requireSnapshot checks the version of the stream's snapshot of schemaVersion that LoadStream
// returns, 0 for none, and that the events after it come with it.
func requireSnapshot(t *testing.T, s SnapshotStore, streamID string, schemaVersion int, version int64) {
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
	require.Equal(t, VersionsOf(all), VersionsOf(tail))
}
