package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// ReadAllEventually polls ReadAll until it returns want events. In PostgreSQL an event becomes
// readable only once every older transaction in the cluster has finished, and other tests hold
// transactions open on purpose.
func ReadAllEventually(t *testing.T, s eventstore.Store, from eventstore.Checkpoint, want int) []eventstore.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		read, err := s.ReadAll(context.Background(), from, 0)
		require.NoError(t, err)
		if len(read) >= want {
			return read
		}
		if time.Now().After(deadline) {
			t.Fatalf("read %d events, want %d, within 10s", len(read), want)
		}
		time.Sleep(10 * time.Millisecond) // polling: a condition with a deadline
	}
}

// Events returns one event of each type, in order, with small JSON data.
func Events(types ...string) []eventstore.NewEvent {
	out := make([]eventstore.NewEvent, len(types))
	for i, typ := range types {
		out[i] = eventstore.NewEvent{Type: typ, Data: json.RawMessage(`{"n":` + fmt.Sprint(i) + `}`)}
	}
	return out
}

// TypesOf returns the events' types, in order.
func TypesOf(events []eventstore.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

// AppendStream appends n events to a new stream, one append each, with metadata that names an
// actor, and returns them.
func AppendStream(t *testing.T, s eventstore.Store, streamID string, n int) []eventstore.Event {
	t.Helper()
	var out []eventstore.Event
	for i := range n {
		meta := eventstore.Metadata{CommandID: fmt.Sprintf("cmd-%d", i+1), Command: "lend",
			Actor: eventstore.Actor{Subject: "u-1", Role: "librarian", Issuer: "https://idp.example"}}
		got, err := s.Append(context.Background(), streamID, int64(i),
			[]eventstore.NewEvent{{Type: fmt.Sprintf("E%d", i+1), Data: json.RawMessage(`{"n":1}`), Metadata: meta}})
		require.NoError(t, err)
		out = append(out, got...)
	}
	return out
}

// SnapshotAt is a snapshot of e's stream up to e.
func SnapshotAt(e eventstore.Event, schemaVersion int) eventstore.Snapshot {
	return eventstore.Snapshot{StreamID: e.StreamID, Version: e.Version, Position: e.Position, SchemaVersion: schemaVersion,
		State: fmt.Appendf(nil, "state@%d", e.Version), Window: fmt.Appendf(nil, "window@%d", e.Version)}
}

// VersionsOf returns the events' versions, in order.
func VersionsOf(events []eventstore.Event) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Version
	}
	return out
}
