package snapshots_test

import (
	"log/slog"
	"testing"

	"library/internal/aggregate"
	"library/internal/aggregate/eventlog"
	"library/internal/aggregate/snapshots"
	"library/internal/eventstore"
	"library/internal/testkit/aggregatetest"
)

func TestContract(t *testing.T) {
	aggregatetest.Contract(t, func(_ *testing.T, log *eventstore.Memory) aggregate.Store[aggregatetest.Tally] {
		typ := aggregatetest.Type()
		return snapshots.Wrap(eventlog.New(log, typ), log, typ, snapshots.Options[aggregatetest.Tally]{
			Every: 10, CommandIDsPerStream: 100, Logger: slog.New(slog.DiscardHandler)})
	})
}
