package aggregatetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// NewStore returns the store under test of Type's aggregates, on log (an empty log of its own).
type NewStore func(t *testing.T, log *eventstore.Memory) aggregate.Store[Tally]

// Contract runs the suite against the stores newStore makes.
func Contract(t *testing.T, newStore NewStore) {
	checks := []struct {
		name string
		run  func(t *testing.T, newStore NewStore)
	}{
		{"AnEmptyStreamStartsEmpty", contractAnEmptyStreamStartsEmpty},
		{"WhatIsAppendedIsLoadedAsDecided", contractWhatIsAppendedIsLoadedAsDecided},
		{"ReadsAreBoundedByVersion", contractReadsAreBoundedByVersion},
		{"AnAppendAtAnotherVersionIsAConflict", contractAnAppendAtAnotherVersionIsAConflict},
		{"AKeptAggregateIsBehindNeverWrong", contractAKeptAggregateIsBehindNeverWrong},
		{"AColdLoadFoldsTheWholeStream", contractAColdLoadFoldsTheWholeStream},
		{"DropForgetsWhatIsKept", contractDropForgetsWhatIsKept},
		{"NothingChangedDecodesToNothing", contractNothingChangedDecodesToNothing},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newStore)
		})
	}
}

const streamID = "tally-a"

// fold is the aggregate a start gives once its events are folded onto it, as a repository
// folds it (a kept state cloned first).
func fold(t *testing.T, s aggregate.Store[Tally], start aggregate.Start[Tally]) aggregate.Loaded[Tally] {
	t.Helper()
	loaded := aggregate.Loaded[Tally]{State: Type().New(), Commands: window.New(100)}
	if start.From != nil {
		loaded = *start.From
		loaded.State = Type().Clone(loaded.State)
	}
	events, err := s.Decode(context.Background(), streamID, start.Stored)
	require.NoError(t, err)
	for i, e := range start.Stored {
		loaded.Version, loaded.Position = e.Version, e.Position
		if events[i] != nil {
			loaded.State = apply(loaded.State, events[i])
		}
	}
	loaded.Commands = loaded.Commands.With(start.Stored)
	return loaded
}

// load loads the stream through s, folded, and tells s of it as a repository does.
func load(t *testing.T, s aggregate.Store[Tally]) (aggregate.Loaded[Tally], aggregate.Start[Tally]) {
	t.Helper()
	ctx := context.Background()
	start, err := s.Load(ctx, streamID)
	require.NoError(t, err)
	if start.Kept {
		stored, err := s.ReadAfter(ctx, streamID, start.From.Version)
		require.NoError(t, err)
		start = aggregate.Start[Tally]{From: start.From, Stored: stored}
	}
	from := int64(0)
	if start.From != nil {
		from = start.From.Version
	}
	loaded := fold(t, s, start)
	if later := s.Keep(ctx, streamID, from, loaded); later != nil {
		later(ctx)
	}
	return loaded, start
}

// appendDecided encodes and appends decided at version through s, and tells s of the result.
func appendDecided(t *testing.T, s aggregate.Store[Tally], from aggregate.Loaded[Tally], decided ...aggregate.Event) (aggregate.Loaded[Tally], error) {
	t.Helper()
	ctx := context.Background()
	meta := eventstore.Metadata{CommandID: "k", Command: "add"}
	events, err := s.Encode(ctx, streamID, decided, meta, from.Version+1)
	require.NoError(t, err)
	recorded, err := s.Append(ctx, aggregate.Append{StreamID: streamID, Version: from.Version, Events: events})
	if err != nil {
		return aggregate.Loaded[Tally]{}, err
	}
	after := from
	after.State = Type().Clone(from.State)
	for _, e := range decided {
		after.State = apply(after.State, e)
	}
	last := recorded[len(recorded)-1]
	after.Version, after.Position, after.Commands = last.Version, last.Position, from.Commands.With(recorded)
	if later := s.Keep(ctx, streamID, from.Version, after); later != nil {
		later(ctx)
	}
	return after, nil
}

func contractAnEmptyStreamStartsEmpty(t *testing.T, newStore NewStore) {
	loaded, start := load(t, newStore(t, eventstore.NewMemory(nil)))
	require.False(t, start.Kept)
	require.Empty(t, start.Stored)
	require.Equal(t, int64(0), loaded.Version)
	require.Equal(t, Tally{}, loaded.State)
}

func contractWhatIsAppendedIsLoadedAsDecided(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	log := eventstore.NewMemory(nil)
	s := newStore(t, log)
	empty, _ := load(t, s)
	decided := []aggregate.Event{Added{N: 2}, Named{Name: "Ann"}}
	_, err := appendDecided(t, s, empty, decided...)
	require.NoError(t, err)
	require.Equal(t, Named{Name: "Ann"}, decided[1], "the decided events are not changed: they are the answer")
	stored, err := log.ReadStream(ctx, streamID, 0)
	require.NoError(t, err)
	require.Len(t, stored, 2)
	require.Equal(t, "k", stored[0].Metadata.CommandID, "each event carries its command's metadata")
	events, err := s.Decode(ctx, streamID, stored)
	require.NoError(t, err)
	require.Equal(t, decided, events, "decoded as decided, personal values opened")
	loaded, _ := load(t, newStore(t, log))
	require.Equal(t, Tally{Total: 2, Added: []int{2}, Name: "Ann"}, loaded.State)
	require.Equal(t, int64(2), loaded.Version)
	_, found := loaded.Commands.Find("k")
	require.True(t, found, "the command's id is in the window")
}

func contractReadsAreBoundedByVersion(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	s := newStore(t, eventstore.NewMemory(nil))
	empty, _ := load(t, s)
	_, err := appendDecided(t, s, empty, Added{N: 1}, Added{N: 2}, Added{N: 3})
	require.NoError(t, err)
	after, err := s.ReadAfter(ctx, streamID, 1)
	require.NoError(t, err)
	require.Equal(t, []int64{2, 3}, versions(after))
	between, err := s.ReadVersions(ctx, streamID, 1, 2)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, versions(between))
}

func contractAnAppendAtAnotherVersionIsAConflict(t *testing.T, newStore NewStore) {
	s := newStore(t, eventstore.NewMemory(nil))
	empty, _ := load(t, s)
	_, err := appendDecided(t, s, empty, Added{N: 1})
	require.NoError(t, err)
	_, err = appendDecided(t, s, empty, Added{N: 5})
	_, conflict := errors.AsType[*eventstore.ConflictError](err)
	require.True(t, conflict, "appended at version 0 of a stream at 1: %v", err)
}

// A kept aggregate that another writer left behind is caught by the append's version check,
// and the events after it bring it up to the log.
func contractAKeptAggregateIsBehindNeverWrong(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	log := eventstore.NewMemory(nil)
	s, other := newStore(t, log), newStore(t, log)
	empty, _ := load(t, s)
	_, err := appendDecided(t, s, empty, Added{N: 1})
	require.NoError(t, err)
	elsewhere, _ := load(t, other)
	_, err = appendDecided(t, other, elsewhere, Added{N: 10})
	require.NoError(t, err)

	start, err := s.Load(ctx, streamID)
	require.NoError(t, err)
	if start.Kept {
		require.Equal(t, int64(1), start.From.Version, "behind the log")
		require.Equal(t, 1, start.From.State.Total, "never wrong about what it holds")
		_, err = appendDecided(t, s, *start.From, Added{N: 100})
		_, conflict := errors.AsType[*eventstore.ConflictError](err)
		require.True(t, conflict, "a stale kept aggregate is caught by the append: %v", err)
	}
	loaded, _ := load(t, s)
	require.Equal(t, int64(2), loaded.Version)
	require.Equal(t, 11, loaded.State.Total)
	if peeked, ok := s.Peek(streamID); ok {
		require.LessOrEqual(t, peeked.Version, int64(2))
	}
}

// A store that starts a stream from what it keeps (a snapshot) folds to what the whole stream
// gives, however long it is.
func contractAColdLoadFoldsTheWholeStream(t *testing.T, newStore NewStore) {
	log := eventstore.NewMemory(nil)
	s := newStore(t, log)
	loaded, _ := load(t, s)
	want := Tally{}
	for i := range 25 {
		var err error
		loaded, err = appendDecided(t, s, loaded, Added{N: i})
		require.NoError(t, err)
		want = apply(want, Added{N: i})
	}
	cold, _ := load(t, newStore(t, log))
	require.Equal(t, want, cold.State)
	require.Equal(t, int64(25), cold.Version)
	require.Equal(t, loaded.Position, cold.Position)
}

func contractDropForgetsWhatIsKept(t *testing.T, newStore NewStore) {
	s := newStore(t, eventstore.NewMemory(nil))
	empty, _ := load(t, s)
	_, err := appendDecided(t, s, empty, Added{N: 1})
	require.NoError(t, err)
	s.Drop(streamID)
	_, ok := s.Peek(streamID)
	require.False(t, ok)
	start, err := s.Load(context.Background(), streamID)
	require.NoError(t, err)
	require.False(t, start.Kept, "a dropped stream is read again")
}

func contractNothingChangedDecodesToNothing(t *testing.T, newStore NewStore) {
	events, err := newStore(t, eventstore.NewMemory(nil)).Decode(context.Background(), streamID,
		[]eventstore.Event{{StreamID: streamID, Version: 1, Type: aggregate.NothingChanged, Data: []byte(`{}`)}})
	require.NoError(t, err)
	require.Equal(t, []aggregate.Event{nil}, events)
}

func versions(events []eventstore.Event) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Version
	}
	return out
}
