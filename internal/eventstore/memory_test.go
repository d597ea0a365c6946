package eventstore

import (
	"context"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMemory(t *testing.T) {
	t.Parallel()
	testContract(t, func(*testing.T) Store { return NewMemory(nil) })
	testPositions(t, func(*testing.T) Store { return NewMemory(nil) })
	testSnapshots(t, func(*testing.T) snapshotStore { return NewMemory(nil) }, restoreMemory)
}

// restoreMemory is a forgetFunc: a new store, restored from the old one's log without the
// stream's events after keep, with the old one's snapshots. Events are appended again in the
// log's order, so those before the first one left out keep their positions.
func restoreMemory(t *testing.T, s snapshotStore, streamID string, keep int64) snapshotStore {
	t.Helper()
	ctx, old, restored := context.Background(), s.(*Memory), NewMemory(nil)
	all, err := old.ReadAll(ctx, Checkpoint{}, 0)
	require.NoError(t, err)
	for _, e := range all {
		if e.StreamID == streamID && e.Version > keep {
			continue
		}
		_, err := restored.Append(ctx, e.StreamID, e.Version-1, []NewEvent{{Type: e.Type, Data: e.Data, Metadata: e.Metadata}})
		require.NoError(t, err)
	}
	old.mu.RLock()
	restored.snapshots = maps.Clone(old.snapshots)
	old.mu.RUnlock()
	return restored
}
