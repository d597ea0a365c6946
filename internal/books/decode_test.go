package books

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/eventstore"
)

// A book event reads back from the log as the typed event that was written, with its book's
// id; an event of another stream is refused, and a "nothing changed" marker is no event.
func TestDecodeReadsBookEventsAsWritten(t *testing.T) {
	t.Parallel()
	lent := BookLent{LoanID: "l1", MemberID: "ann", LentAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), DueAt: time.Date(2026, 1, 16, 3, 4, 5, 0, time.UTC)}
	data, err := json.Marshal(lent)
	require.NoError(t, err)
	stored := eventstore.Event{StreamID: Type().StreamID("dune"), Type: lent.EventType(), Data: data, Position: 7}

	got, err := Decode(stored)
	require.NoError(t, err)
	require.Equal(t, lent, got)
	id, ok := BookID(stored)
	require.True(t, ok)
	require.Equal(t, "dune", id)

	nothing, err := Decode(eventstore.Event{StreamID: stored.StreamID, Type: aggregate.NothingChanged, Data: []byte(`{}`)})
	require.NoError(t, err)
	require.Nil(t, nothing)

	other := eventstore.Event{StreamID: "account-ann", Type: lent.EventType(), Data: data}
	_, err = Decode(other)
	require.Error(t, err, "an account's event")
	_, ok = BookID(other)
	require.False(t, ok)
}
