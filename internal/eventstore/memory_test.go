package eventstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/testkit/storetest"
)

func TestMemory(t *testing.T) {
	t.Parallel()
	storetest.Contract(t, func(*testing.T) eventstore.Store { return eventstore.NewMemory(nil) })
	storetest.Positions(t, func(*testing.T) eventstore.Store { return eventstore.NewMemory(nil) })
	storetest.Snapshots(t, func(*testing.T) storetest.SnapshotStore { return eventstore.NewMemory(nil) }, restoreMemory)
}

// restoreMemory is a storetest.ForgetFunc: a new store, restored from the old one's log without
// the stream's events after keep, with the old one's snapshots. Events are appended again in the
// log's order, so those before the first one left out keep their positions.
func restoreMemory(t *testing.T, s storetest.SnapshotStore, streamID string, keep int64) storetest.SnapshotStore {
	t.Helper()
	ctx, old, restored := context.Background(), s.(*eventstore.Memory), eventstore.NewMemory(nil)
	all, err := old.ReadAll(ctx, eventstore.Checkpoint{}, 0)
	require.NoError(t, err)
	for _, e := range all {
		if e.StreamID == streamID && e.Version > keep {
			continue
		}
		_, err := restored.Append(ctx, e.StreamID, e.Version-1, []eventstore.NewEvent{{Type: e.Type, Data: e.Data, Metadata: e.Metadata}})
		require.NoError(t, err)
	}
	eventstore.CopySnapshots(restored, old)
	return restored
}
