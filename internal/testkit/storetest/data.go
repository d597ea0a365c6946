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
