package aggregatetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
	"library/internal/errs"
	"library/internal/eventstore"
)

// Upcasting is the suite of upcasters on every path a stored event is read by, on the logs
// newLog makes (an empty log of its own each): events written by older releases of the shelf,
// and one appended straight to the log with no metadata at all, read by the code as it is now
// from the stream's start, after a snapshot, after a kept aggregate, in a replay, by a reader
// of the log (Type.Decode, which books.Decode and accounts.Decode are) and for a history
// (Present); and events of a newer release refused by an older one.
func Upcasting(t *testing.T, newLog func(t *testing.T) aggregate.Log) {
	checks := []struct {
		name string
		run  func(t *testing.T, log aggregate.Log)
	}{
		{"EveryReleasesEventsLoadInTheCurrentShape", upcastEveryReleasesEventsLoadInTheCurrentShape},
		{"TheEventsAfterASnapshotAreUpcast", upcastTheEventsAfterASnapshotAreUpcast},
		{"TheEventsAfterAKeptAggregateAreUpcast", upcastTheEventsAfterAKeptAggregateAreUpcast},
		{"AReplayAnswersInTheCurrentShape", upcastAReplayAnswersInTheCurrentShape},
		{"ReadersOfTheLogAndHistoriesUpcast", upcastReadersOfTheLogAndHistoriesUpcast},
		{"AnOlderReleaseRefusesANewerEvent", upcastAnOlderReleaseRefusesANewerEvent},
		{"AppendsRecordTheirSchemaVersion", upcastAppendsRecordTheirSchemaVersion},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newLog(t))
		})
	}
}

// cold: no kept aggregates, no snapshots.
var cold = aggregate.Options{CacheBytes: -1, SnapshotEvery: -1}

// writeEveryRelease writes to the shelf id one Stocked of each shape, 1, 2, 4 and 8: by release
// 1, by release 2, straight to the log as an event from before versions were recorded, and by
// the code as it is now.
func writeEveryRelease(t *testing.T, log aggregate.Log, id string) {
	t.Helper()
	ctx := context.Background()
	_, err := repository(log, release1(), cold).Execute(ctx, id, stockV1(1, id+"-1"))
	require.NoError(t, err)
	_, err = repository(log, release2(), cold).Execute(ctx, id, stockV2(2, id+"-2"))
	require.NoError(t, err)
	_, err = log.Append(ctx, ShelfType().StreamID(id), 2, []eventstore.NewEvent{{Type: "Stocked", Data: json.RawMessage(`{"n":4}`)}})
	require.NoError(t, err)
	_, err = repository(log, ShelfType(), cold).Execute(ctx, id, stockNow(id, 8, id+"-4"))
	require.NoError(t, err)
}

func upcastEveryReleasesEventsLoadInTheCurrentShape(t *testing.T, log aggregate.Log) {
	ctx := context.Background()
	writeEveryRelease(t, log, "a")
	stored, err := log.ReadStream(ctx, "shelf-a", 0)
	require.NoError(t, err)
	require.Equal(t, []int{0, 2, 0, 3}, schemas(stored), "each event's version, none for version 1")

	loaded, err := repository(log, ShelfType(), cold).Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, Shelf{Count: 15, Shelves: []string{"a", "a", "a", "a"}}, loaded.State)
}

func upcastTheEventsAfterASnapshotAreUpcast(t *testing.T, log aggregate.Log) {
	ctx := context.Background()
	old := repository(log, release1(), cold)
	for _, n := range []int{1, 2} {
		_, err := old.Execute(ctx, "b", stockV1(n, fmt.Sprint("b-", n)))
		require.NoError(t, err)
	}
	snapshotted := aggregate.Options{CacheBytes: -1, SnapshotEvery: 2}
	loaded, err := repository(log, ShelfType(), snapshotted).Load(ctx, "b") // a load that read 2 events writes a snapshot
	require.NoError(t, err)
	require.Equal(t, 3, loaded.State.Count)
	_, err = old.Execute(ctx, "b", stockV1(4, "b-3"))
	require.NoError(t, err)

	snap, tail, err := log.LoadStream(ctx, "shelf-b", ShelfType().Snapshot.Version)
	require.NoError(t, err)
	require.NotNil(t, snap, "a snapshot at version 2")
	require.Equal(t, int64(2), snap.Version)
	require.Equal(t, []int{0}, schemas(tail), "and a tail of release 1's")
	loaded, err = repository(log, ShelfType(), snapshotted).Load(ctx, "b")
	require.NoError(t, err)
	require.Equal(t, Shelf{Count: 7, Shelves: []string{"b", "b", "b"}}, loaded.State)
	require.Equal(t, int64(3), loaded.Version)
}

func upcastTheEventsAfterAKeptAggregateAreUpcast(t *testing.T, log aggregate.Log) {
	ctx := context.Background()
	opts := aggregate.Options{SnapshotEvery: -1}
	store := stack.Store(log, ShelfType(), opts)
	kept := core.New(store, ShelfType(), opts)
	_, err := kept.Execute(ctx, "c", stockNow("c", 1, "c-1"))
	require.NoError(t, err)
	_, ok := store.Peek("shelf-c")
	require.True(t, ok, "kept")
	_, err = log.Append(ctx, "shelf-c", 1, []eventstore.NewEvent{{Type: "Stocked", Data: json.RawMessage(`{"n":2}`)}})
	require.NoError(t, err)
	loaded, err := kept.Load(ctx, "c")
	require.NoError(t, err)
	require.Equal(t, Shelf{Count: 3, Shelves: []string{"c", "c"}}, loaded.State)
}

func upcastAReplayAnswersInTheCurrentShape(t *testing.T, log aggregate.Log) {
	ctx := context.Background()
	first, err := repository(log, release1(), cold).Execute(ctx, "d", stockV1(5, "d-1"))
	require.NoError(t, err)
	again, err := repository(log, ShelfType(), cold).Execute(ctx, "d", stockNow("d", 5, "d-1"))
	require.NoError(t, err)
	require.True(t, again.Replayed, "the key that release 1 recorded")
	require.Equal(t, first.Version, again.Version)
	require.Equal(t, Stocked{Count: 5, Shelf: "d"}, again.Events[0].Data, "in the shape the code knows now")
}

func upcastReadersOfTheLogAndHistoriesUpcast(t *testing.T, log aggregate.Log) {
	ctx := context.Background()
	writeEveryRelease(t, log, "e")
	stored, err := log.ReadStream(ctx, "shelf-e", 0)
	require.NoError(t, err)
	want := []aggregate.Event{Stocked{1, "e"}, Stocked{2, "e"}, Stocked{4, "e"}, Stocked{8, "e"}}
	for i, e := range stored {
		got, err := ShelfType().Decode(e)
		require.NoError(t, err)
		require.Equal(t, want[i], got, "Type.Decode, as a processor reads it")
	}
	presented, err := repository(log, ShelfType(), cold).Present(ctx, "e", stored)
	require.NoError(t, err)
	require.Equal(t, want, presented, "Present, for a history or an export")
}

// An event of a version newer than a release knows is refused by it: in a load, in a command
// (which appends nothing), by Type.Decode; as an error to try again, never read as an older
// shape.
func upcastAnOlderReleaseRefusesANewerEvent(t *testing.T, log aggregate.Log) {
	ctx := context.Background()
	_, err := repository(log, release2(), cold).Execute(ctx, "f", stockV2(1, "f-1"))
	require.NoError(t, err)
	old := repository(log, release1(), cold)
	_, err = old.Load(ctx, "f")
	requireNewer(t, err, 2, 1)
	_, err = old.Execute(ctx, "f", stockV1(1, "f-2"))
	requireNewer(t, err, 2, 1)
	stored, err := log.ReadStream(ctx, "shelf-f", 0)
	require.NoError(t, err)
	require.Len(t, stored, 1, "nothing appended")
	_, err = release1().Decode(stored[0])
	requireNewer(t, err, 2, 1)

	_, err = repository(log, ShelfType(), cold).Execute(ctx, "f", stockNow("f", 1, "f-3"))
	require.NoError(t, err)
	_, err = repository(log, release2(), cold).Load(ctx, "f")
	requireNewer(t, err, 3, 2)
}

func requireNewer(t *testing.T, err error, stored, current int) {
	t.Helper()
	require.True(t, errs.Is(err, errs.Unavailable), "an error to try again: %v", err)
	newer, ok := errors.AsType[*aggregate.NewerSchemaError](err)
	require.True(t, ok, "%v", err)
	require.Equal(t, aggregate.NewerSchemaError{Type: "Stocked", Stored: stored, Current: current}, *newer)
}

// A command's events carry their types' versions, none for version 1, and so do the events it
// writes to another stream (Also).
func upcastAppendsRecordTheirSchemaVersion(t *testing.T, log aggregate.Log) {
	ctx := context.Background()
	cmd := stockNow("g", 1, "g-1")
	cmd.Decide = func(Shelf) ([]aggregate.Event, error) { return []aggregate.Event{Stocked{1, "g"}, Emptied{}}, nil }
	cmd.Also = func(_ context.Context, decided []aggregate.Event) (aggregate.Also, error) {
		return aggregate.Also{StreamID: "shelf-h", Events: decided, Codecs: ShelfType().Events}, nil
	}
	_, err := repository(log, ShelfType(), cold).Execute(ctx, "g", cmd)
	require.NoError(t, err)
	for _, stream := range []string{"shelf-g", "shelf-h"} {
		stored, err := log.ReadStream(ctx, stream, 0)
		require.NoError(t, err)
		require.Equal(t, []int{3, 0}, schemas(stored), stream)
		withoutSchema := stored[0].Metadata
		withoutSchema.Schema = 0
		require.Equal(t, withoutSchema, stored[1].Metadata, "%s: one command's metadata but for the version", stream)
	}
}

func schemas(events []eventstore.Event) []int {
	out := make([]int, len(events))
	for i, e := range events {
		out[i] = e.Metadata.Schema
	}
	return out
}
