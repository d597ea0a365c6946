package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// bulkChecks are the checks of AppendBulk, in Contract, for a store that is an eventstore.Bulk.
var bulkChecks = []check{
	{"AppendBulkReadsBackAsAppendAllWrites", contractAppendBulkReadsBackAsAppendAll},
	{"AppendBulkWritesNothingOnConflict", contractAppendBulkWritesNothingOnConflict},
}

// bulkParts are new streams and one that exists, at version 1, with data and metadata.
func bulkParts() []eventstore.StreamAppend {
	meta := eventstore.Metadata{CommandID: "import:1", Command: "import", Actor: eventstore.Actor{Subject: "operator", Role: "librarian"}}
	event := func(typ, data string) eventstore.NewEvent {
		return eventstore.NewEvent{Type: typ, Data: json.RawMessage(data), Metadata: meta}
	}
	return []eventstore.StreamAppend{
		{StreamID: "title-dune", Events: []eventstore.NewEvent{event("TitleAdded", `{"id":"dune","title":"Dune"}`), event("CopyAdded", `{"bookId":"b1"}`)}},
		{StreamID: "book-b1", Events: []eventstore.NewEvent{event("BookAdded", `{"id":"b1","title":"Dune ű 東京"}`)}},
		{StreamID: "account-ann", ExpectedVersion: 1, Events: []eventstore.NewEvent{event("LoanOpened", `{"loanId":"l1"}`)}},
	}
}

func contractAppendBulkReadsBackAsAppendAll(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx := context.Background()
	bulk, all := newStore(t), newStore(t)
	b, ok := bulk.(eventstore.Bulk)
	if !ok {
		t.Fatalf("%T is no eventstore.Bulk", bulk)
	}
	for _, s := range []eventstore.Store{bulk, all} {
		_, err := s.Append(ctx, "account-ann", 0, Events("AccountOpened"))
		require.NoError(t, err)
	}
	require.NoError(t, b.AppendBulk(ctx, bulkParts()))
	_, err := all.AppendAll(ctx, bulkParts())
	require.NoError(t, err)

	for _, part := range bulkParts() {
		got, err := bulk.ReadStream(ctx, part.StreamID, 0)
		require.NoError(t, err)
		want, err := all.ReadStream(ctx, part.StreamID, 0)
		require.NoError(t, err)
		require.Len(t, got, len(want), part.StreamID)
		for i := range want {
			require.Equal(t, want[i].Version, got[i].Version)
			require.Equal(t, want[i].Type, got[i].Type)
			require.JSONEq(t, string(want[i].Data), string(got[i].Data))
			require.Equal(t, want[i].Metadata, got[i].Metadata)
		}
	}
	read := ReadAllEventually(t, bulk, eventstore.Checkpoint{}, 5)
	require.ElementsMatch(t, []string{"AccountOpened", "TitleAdded", "CopyAdded", "BookAdded", "LoanOpened"}, TypesOf(read))
	require.Equal(t, read[1].TransactionID, read[4].TransactionID, "one transaction")

	versions, err := b.StreamVersions(ctx, []string{"title-dune", "account-ann", "book-b1", "book-none"})
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"title-dune": 2, "account-ann": 2, "book-b1": 1}, versions, "a stream that is not there is left out")

	streams, err := b.ReadStreams(ctx, []string{"title-dune", "book-none", "account-ann"})
	require.NoError(t, err)
	require.Len(t, streams, 2, "a stream that is not there is left out")
	for id, got := range streams {
		want, err := bulk.ReadStream(ctx, id, 0)
		require.NoError(t, err)
		require.Equal(t, want, got, id)
	}
}

func contractAppendBulkWritesNothingOnConflict(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	b := s.(eventstore.Bulk)
	_, err := s.Append(ctx, "account-ann", 0, Events("AccountOpened"))
	require.NoError(t, err)
	_, err = s.Append(ctx, "book-b1", 0, Events("BookAdded"))
	require.NoError(t, err)
	var conflict *eventstore.ConflictError
	require.ErrorAs(t, b.AppendBulk(ctx, bulkParts()), &conflict, "book-b1 exists")

	parts := bulkParts()
	parts = append(parts[:1], parts[2])
	parts[1].ExpectedVersion = 2 // it is at 1
	require.ErrorAs(t, b.AppendBulk(ctx, parts), &conflict, "account-ann is at 1")
	for _, id := range []string{"title-dune"} {
		read, err := s.ReadStream(ctx, id, 0)
		require.NoError(t, err)
		require.Empty(t, read, "nothing of either import is written")
	}
}
