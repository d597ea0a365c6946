package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// dataChecks are the suite's checks of reads of data (eventstore.DataReader), for a store that
// has them.
var dataChecks = []check{
	{"ReadDataReadsWhatReadTypesReadsWithItsSchemaAlone", contractReadData},
	{"ReadOlderReadsTheOlderEventsOfItsTypesAloneAndPassesTheRest", contractReadOlder},
}

// contractReadData: whatever the limit and the types, a read of data returns the events and
// the Through of the same read of ReadTypes, each event with its data, its place and its
// schema version, and none of the command's metadata.
func contractReadData(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	reader, ok := s.(eventstore.DataReader)
	if !ok {
		return // nothing to check: the store reads whole events only
	}
	var all []eventstore.Event
	for i, typ := range []string{"A", "B", "A", "B", "B", "C", "A", "B", "A"} {
		meta := eventstore.Metadata{CommandID: fmt.Sprint("cmd-", i), Command: "stock", Fingerprint: "f", CorrelationID: "c",
			Actor: eventstore.Actor{Subject: "alice", Role: "staff", Issuer: "https://id.example"}, Schema: i % 3}
		got, err := s.Append(ctx, fmt.Sprint("data-", i), 0, []eventstore.NewEvent{{Type: typ, Data: json.RawMessage(`{"n":1}`), Metadata: meta}})
		require.NoError(t, err)
		all = append(all, got...)
	}
	ReadAllEventually(t, s, eventstore.Checkpoint{}, len(all))
	for _, types := range [][]string{{"A", "C"}, {"B"}, nil} {
		for _, limit := range []int{0, 1, 2, 4} {
			from := eventstore.Checkpoint{}
			for {
				whole, err := s.ReadTypes(ctx, from, limit, types)
				require.NoError(t, err)
				data, err := reader.ReadData(ctx, from, limit, types)
				require.NoError(t, err)
				want := make([]eventstore.Event, len(whole.Events))
				for i, e := range whole.Events {
					require.NotEmpty(t, e.Metadata.CommandID, "ReadTypes reads the command's metadata")
					want[i] = eventstore.DataOnly(e)
				}
				require.Equal(t, eventstore.Page{Events: want, Through: whole.Through}, data, "types %v, limit %d, after %v", types, limit, from)
				if limit == 0 || len(whole.Events) < limit {
					break
				}
				from = whole.Through
			}
		}
	}
}

// contractReadOlder: whatever the limit, the types and the bound, reads of older events one
// after another return, in the log's order, the events of the types written at a schema
// version below the bound (version 1 for those that record none), whole, at most limit a
// read, and the last read's Through is the log's last event, of whatever type and version. A
// read that names no type is refused.
func contractReadOlder(t *testing.T, newStore func(t *testing.T) eventstore.Store) {
	t.Parallel()
	ctx, s := context.Background(), newStore(t)
	reader, ok := s.(eventstore.OlderReader)
	if !ok {
		return // nothing to check: the store reads events of every version
	}
	var all []eventstore.Event
	for i, typ := range []string{"A", "B", "A", "B", "B", "C", "A", "B", "A", "C"} {
		meta := eventstore.Metadata{CommandID: fmt.Sprint("cmd-", i), Command: "stock", Schema: i % 4}
		got, err := s.Append(ctx, fmt.Sprint("older-", i), 0, []eventstore.NewEvent{{Type: typ, Data: json.RawMessage(`{"n":1}`), Metadata: meta}})
		require.NoError(t, err)
		all = append(all, got...)
	}
	ReadAllEventually(t, s, eventstore.Checkpoint{}, len(all))
	_, err := reader.ReadOlder(ctx, eventstore.Checkpoint{}, 0, nil, 2)
	require.ErrorIs(t, err, eventstore.ErrNoTypes)
	for _, types := range [][]string{{"A", "C"}, {"B"}, {"A", "B", "C"}} {
		for _, below := range []int{1, 2, 3, 4} {
			var want []eventstore.Event
			for _, e := range all {
				if eventstore.Reads(types, e.Type) && eventstore.Older(e, below) {
					want = append(want, e)
				}
			}
			for _, limit := range []int{0, 1, 2, 4} {
				var got []eventstore.Event
				from := eventstore.Checkpoint{}
				for {
					page, err := reader.ReadOlder(ctx, from, limit, types, below)
					require.NoError(t, err)
					require.True(t, limit == 0 || len(page.Events) <= limit, "at most limit a read")
					got, from = append(got, page.Events...), page.Through
					if limit == 0 || len(page.Events) < limit {
						break
					}
				}
				require.Equal(t, eventPlaces(want), eventPlaces(got), "types %v, below %d, limit %d", types, below, limit)
				require.Equal(t, all[len(all)-1].Checkpoint(), from, "types %v, below %d, limit %d: read to the end", types, below, limit)
			}
		}
	}
}

// eventPlaces are the events' streams, versions and schema versions, in order.
func eventPlaces(events []eventstore.Event) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		out = append(out, fmt.Sprintf("%s/%d %s schema %d", e.StreamID, e.Version, e.Type, e.Metadata.Schema))
	}
	return out
}
