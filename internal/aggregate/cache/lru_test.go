package cache

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/aggregate/window"
)

// The kept aggregates never weigh more than the bound, the least recently used out first, and
// the list of recency and the map of entries agree.
func TestTheLRUKeepsToItsBound(t *testing.T) {
	t.Parallel()
	kept := newLRU[int](1500, func(int) int { return 100 })
	for i := range 20 {
		streamID := fmt.Sprint("s-", i%7)
		kept.put(streamID, aggregate.Loaded[int]{State: i, Version: int64(i + 1), Commands: window.New(10)})
		kept.mu.Lock()
		weight, entries := kept.weight, len(kept.entries)
		require.LessOrEqual(t, weight, 1500)
		require.Equal(t, kept.recency.Len(), entries)
		kept.mu.Unlock()
		got, ok := kept.get(streamID)
		require.True(t, ok, "the newest is kept")
		require.Equal(t, i, got.State)
	}
}
