package accounts

import (
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
)

// An account event reads back from the log as the typed event that was written, with its
// member's id; an event of another stream is refused.
func TestDecodeReadsAccountEventsAsWritten(t *testing.T) {
	t.Parallel()
	stored := eventstore.Event{StreamID: Type().StreamID("ann"), Type: PaymentReceived{}.EventType(),
		Data: []byte(`{"amount":250,"checkoutId":"c1"}`)}
	got, err := Decode(stored)
	require.NoError(t, err)
	require.Equal(t, PaymentReceived{Amount: 250, CheckoutID: "c1"}, got)
	id, ok := MemberID(stored)
	require.True(t, ok)
	require.Equal(t, "ann", id)

	_, err = Decode(eventstore.Event{StreamID: "book-dune", Type: "BookLent", Data: []byte(`{}`)})
	require.Error(t, err, "a book's event")
}
