package app_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
)

// /metrics says how often a command found its aggregate kept in memory, and what the kept
// aggregates take.
func TestCacheHitsInMetrics(t *testing.T) {
	t.Parallel()
	a := launch(t, app.Config{}).API("memory")
	for range 3 {
		fine(t, a, "alice", 100, "late")
	}
	m := scrapeMetrics(t, a)
	misses, ok := m.value("library_aggregate_cache_lookups_total", "aggregate", "account", "result", "miss")
	require.True(t, ok)
	hits, ok := m.value("library_aggregate_cache_lookups_total", "aggregate", "account", "result", "hit")
	require.True(t, ok)
	assert.Equal(t, 1.0, misses, "the first command reads the stream")
	assert.Equal(t, 2.0, hits, "the next ones decide on the kept account")
	kept, ok := m.value("library_aggregate_cache_bytes", "aggregate", "account")
	require.True(t, ok)
	assert.Greater(t, kept, 0.0)
}
