package sealing_test

import (
	"testing"

	"library/internal/aggregate"
	"library/internal/aggregate/eventlog"
	"library/internal/aggregate/sealing"
	"library/internal/eventstore"
	"library/internal/pii"
	"library/internal/testkit/aggregatetest"
)

func TestContract(t *testing.T) {
	aggregatetest.Contract(t, func(_ *testing.T, log *eventstore.Memory) aggregate.Store[aggregatetest.Tally] {
		ring := pii.NewKeyring(pii.KEKs{pii.NewKEK("1", [32]byte{1})}, log)
		return sealing.Wrap(eventlog.New(log, aggregatetest.Type()), aggregatetest.Type(), ring)
	})
}
