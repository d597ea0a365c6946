package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// contractMetadataKeepsTheSchemaVersion: the schema version of an event's data (its metadata's
// Schema) is read back by every read as it was appended, and an event appended without one
// (version 1) reads back without one.
func contractMetadataKeepsTheSchemaVersion(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	meta := eventstore.Metadata{CommandID: "key-1", Command: "stock"}
	later := meta
	later.Schema = 3
	_, err := s.Append(ctx, "shelf-a", 0, []eventstore.NewEvent{
		{Type: "Stocked", Data: json.RawMessage(`{"n":1}`), Metadata: meta},
		{Type: "Stocked", Data: json.RawMessage(`{"count":2,"shelf":"a"}`), Metadata: later},
	})
	require.NoError(t, err)
	want := []int{0, 3}

	read, err := s.ReadStream(ctx, "shelf-a", 0)
	require.NoError(t, err)
	require.Equal(t, want, schemasOf(read), "ReadStream")
	require.Equal(t, meta, read[0].Metadata, "a version-1 event's metadata is as it was appended")
	require.Equal(t, later, read[1].Metadata)
	require.Equal(t, want, schemasOf(ReadAllEventually(t, s, eventstore.Checkpoint{}, 2)), "ReadAll")
	page, err := s.ReadTypes(ctx, eventstore.Checkpoint{}, 0, []string{"Stocked"})
	require.NoError(t, err)
	require.Equal(t, want, schemasOf(page.Events), "ReadTypes")
}

func schemasOf(events []eventstore.Event) []int {
	out := make([]int, len(events))
	for i, e := range events {
		out[i] = e.Metadata.Schema
	}
	return out
}
