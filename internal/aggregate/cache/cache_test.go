package cache_test

import (
	"testing"

	"library/internal/aggregate"
	"library/internal/aggregate/cache"
	"library/internal/aggregate/eventlog"
	"library/internal/eventstore"
	"library/internal/testkit/aggregatetest"
)

func TestContract(t *testing.T) {
	aggregatetest.Contract(t, func(_ *testing.T, log *eventstore.Memory) aggregate.Store[aggregatetest.Tally] {
		return cache.Wrap(eventlog.New(log, aggregatetest.Type()), aggregatetest.Type(), aggregate.DefaultCacheBytes, nil)
	})
}
