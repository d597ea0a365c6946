package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// Contract is the suite every eventstore.Store must pass. newStore returns an empty store that
// lives until the test ends.
func Contract(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	checks := []check{
		{"InstallationIsMadeOnceAndKept", contractInstallationIsMadeOnceAndKept},
		{"AppendStartsAStreamAtVersionOne", contractAppendStartsAStreamAtVersionOne},
		{"AppendAtAnotherVersionIsAConflict", contractAppendAtAnotherVersionIsAConflict},
		{"AppendRejectsMalformedInput", contractAppendRejectsMalformedInput},
		{"ReadStream", contractReadStream},
		{"ReadAllInGlobalOrderFromACheckpoint", contractReadAllInGlobalOrderFromACheckpoint},
		{"ConcurrentAppendsAtOneVersionOneWins", contractConcurrentAppendsAtOneVersionOneWins},
		{"ConcurrentAppendsToManyStreamsAreAllRead", contractConcurrentAppendsToManyStreamsAreAllRead},
		{"SubscribeWakesAfterAppend", contractSubscribeWakesAfterAppend},
		{"CancelledContext", contractCancelledContext},
		{"MetadataKeepsTheSchemaVersion", contractMetadataKeepsTheSchemaVersion},
	}
	for _, c := range slices.Concat(checks, appendAllChecks, typeChecks, bulkChecks, dataChecks) {
		t.Run(c.name, func(t *testing.T) { c.run(t, newStore) })
	}
}

// check is one named check of a suite.
type check struct {
	name string
	run  func(t *testing.T, newStore func(t *testing.T) eventstore.Store)
}

func contractInstallationIsMadeOnceAndKept(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s, other := context.Background(), newStore(t), newStore(t)
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Go(func() {
			id, err := s.Installation(ctx)
			assert.NoError(t, err)
			ids[i] = id
		})
	}
	wg.Wait()
	require.NotEmpty(t, ids[0])
	for _, id := range ids {
		require.Equal(t, ids[0], id, "one id, however many ask at once")
	}
	for _, r := range ids[0] {
		require.True(t, r > ' ' && r <= '~' && r != '<' && r != '>' && r != '@', "%q can go in a Message-ID", ids[0])
	}
	otherID, err := other.Installation(ctx)
	require.NoError(t, err)
	require.NotEqual(t, ids[0], otherID, "another log, another id")
}

func contractAppendStartsAStreamAtVersionOne(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	meta := eventstore.Metadata{CommandID: "key-1", Command: "pay", Fingerprint: "f", CorrelationID: "req-1",
		TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	got, err := s.Append(ctx, "account-alice", 0, []eventstore.NewEvent{
		{Type: "FineCharged", Data: json.RawMessage(`{"amount":300}`), Metadata: meta},
		{Type: "PaymentReceived", Data: json.RawMessage(`{"amount":100}`), Metadata: meta},
	})
	require.NoError(t, err)
	require.Len(t, got, 2)
	for i, e := range got {
		require.Equal(t, "account-alice", e.StreamID)
		require.Equal(t, int64(i+1), e.Version)
		require.Equal(t, meta, e.Metadata)
		require.False(t, e.RecordedAt.IsZero())
		require.Equal(t, time.UTC, e.RecordedAt.Location())
	}
	require.Less(t, got[0].Position, got[1].Position)
	require.Equal(t, got[0].TransactionID, got[1].TransactionID, "one append is one transaction")

	read, err := s.ReadStream(ctx, "account-alice", 0)
	require.NoError(t, err)
	require.Len(t, read, 2)
	for i := range read {
		require.JSONEq(t, string(got[i].Data), string(read[i].Data))
		read[i].Data = got[i].Data
	}
	require.Equal(t, got, read, "events read back as they were recorded")
}

func contractAppendAtAnotherVersionIsAConflict(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	_, err := s.Append(ctx, "book-1", 0, Events("BookAdded"))
	require.NoError(t, err)
	_, err = s.Append(ctx, "book-1", 1, Events("BookLent"))
	require.NoError(t, err)

	for _, expected := range []int64{0, 1, 3, 10} {
		_, err := s.Append(ctx, "book-1", expected, Events("BookReturned"))
		var conflict *eventstore.ConflictError
		require.ErrorAs(t, err, &conflict, "expected version %d", expected)
		require.Equal(t, "book-1", conflict.StreamID)
		require.Equal(t, expected, conflict.ExpectedVersion)
	}
	_, err = s.Append(ctx, "book-2", 1, Events("BookAdded"))
	require.ErrorAs(t, err, new(*eventstore.ConflictError), "a stream that does not exist is at version 0")

	read, err := s.ReadStream(ctx, "book-1", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"BookAdded", "BookLent"}, TypesOf(read), "a conflict writes nothing")
}

func contractAppendRejectsMalformedInput(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	_, err := s.Append(ctx, "", 0, Events("A"))
	require.Error(t, err)
	_, err = s.Append(ctx, "s", -1, Events("A"))
	require.Error(t, err)
	_, err = s.Append(ctx, "s", 0, nil)
	require.Error(t, err)
	_, err = s.Append(ctx, "s", 0, []eventstore.NewEvent{{Type: "A", Data: json.RawMessage(`{`)}})
	require.Error(t, err)
	read, err := s.ReadStream(ctx, "s", 0)
	require.NoError(t, err)
	require.Empty(t, read)
}

func contractReadStream(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	_, err := s.Append(ctx, "a", 0, Events("A1", "A2"))
	require.NoError(t, err)
	_, err = s.Append(ctx, "b", 0, Events("B1"))
	require.NoError(t, err)
	_, err = s.Append(ctx, "a", 2, Events("A3"))
	require.NoError(t, err)

	all, err := s.ReadStream(ctx, "a", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"A1", "A2", "A3"}, TypesOf(all))
	tail, err := s.ReadStream(ctx, "a", 2)
	require.NoError(t, err)
	require.Equal(t, []string{"A3"}, TypesOf(tail))
	require.Equal(t, int64(3), tail[0].Version)
	none, err := s.ReadStream(ctx, "a", 3)
	require.NoError(t, err)
	require.NotNil(t, none)
	require.Empty(t, none)
	missing, err := s.ReadStream(ctx, "nobody", 0)
	require.NoError(t, err)
	require.NotNil(t, missing)
	require.Empty(t, missing)
}

func contractReadAllInGlobalOrderFromACheckpoint(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	var appended []eventstore.Event
	for i := range 5 {
		got, err := s.Append(ctx, fmt.Sprintf("s-%d", i%2), int64(i/2), Events(fmt.Sprintf("E%d", i)))
		require.NoError(t, err)
		appended = append(appended, got...)
	}
	all := ReadAllEventually(t, s, eventstore.Checkpoint{}, 5)
	require.Equal(t, []string{"E0", "E1", "E2", "E3", "E4"}, TypesOf(all))

	// Reading in pages from each page's last checkpoint gives the same events, once.
	var paged []eventstore.Event
	var from eventstore.Checkpoint
	for {
		page, err := s.ReadAll(ctx, from, 2)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page), 2)
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		from = page[len(page)-1].Checkpoint()
	}
	require.Equal(t, TypesOf(all), TypesOf(paged))
	for i := 1; i < len(paged); i++ {
		require.True(t, paged[i-1].Checkpoint().Before(paged[i].Checkpoint()))
	}
	require.Equal(t, appended[4].Position, paged[4].Position)
}

func contractConcurrentAppendsAtOneVersionOneWins(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	const writers = 20
	var wg sync.WaitGroup
	results := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			_, err := s.Append(ctx, "contended", 0, Events(fmt.Sprintf("W%d", i)))
			results <- err
		})
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		if err == nil {
			won++
			continue
		}
		require.ErrorAs(t, err, new(*eventstore.ConflictError))
	}
	require.Equal(t, 1, won)
	read, err := s.ReadStream(ctx, "contended", 0)
	require.NoError(t, err)
	require.Len(t, read, 1)
}

func contractConcurrentAppendsToManyStreamsAreAllRead(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	const streams, perStream = 10, 5
	var wg sync.WaitGroup
	for i := range streams {
		wg.Go(func() {
			for v := range perStream {
				_, err := s.Append(ctx, fmt.Sprintf("stream-%d", i), int64(v), Events("E"))
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	all := ReadAllEventually(t, s, eventstore.Checkpoint{}, streams*perStream)
	require.Len(t, all, streams*perStream)
	seen := map[int64]bool{}
	for _, e := range all {
		require.False(t, seen[e.Position], "position %d read twice", e.Position)
		seen[e.Position] = true
	}
}

func contractSubscribeWakesAfterAppend(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	s := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	wake := s.Subscribe(ctx)
	// The subscription may wake once when it starts listening; drain until an append is seen.
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		_, err := s.Append(context.Background(), "woken", int64(i), Events("E"))
		require.NoError(t, err)
		select {
		case <-wake:
		case <-deadline:
			t.Fatal("no wake-up within 10s of an append")
		}
		if all := ReadAllEventually(t, s, eventstore.Checkpoint{}, i+1); len(all) == i+1 {
			break
		}
	}
	cancel()
	select {
	case _, open := <-wake:
		for open {
			_, open = <-wake
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the channel was not closed when the subscription's context ended")
	}
}

func contractCancelledContext(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	s := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Append(ctx, "x", 0, Events("E"))
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.ReadStream(ctx, "x", 0)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.ReadAll(ctx, eventstore.Checkpoint{}, 0)
	require.ErrorIs(t, err, context.Canceled)
	read, err := s.ReadStream(context.Background(), "x", 0)
	require.NoError(t, err)
	require.Empty(t, read)
}
