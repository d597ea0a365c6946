package books

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
)

// A member's loans fold from the book events that name them: each BookLent opens one, at its
// position, a LoanRenewed of the same book and loan id moves its due date, and the BookReturned
// of the same book and loan id closes it; a loan id reused on
// another book is another loan, and events of other streams or types are passed over.
func TestMemberLoansFoldFromTheirBookEvents(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	event := func(position int64, stream string, e Event) eventstore.Event {
		data, err := json.Marshal(e)
		require.NoError(t, err)
		return eventstore.Event{StreamID: stream, Type: e.EventType(), Data: data, Position: position}
	}
	events := []eventstore.Event{
		event(3, "book-dune", BookLent{LoanID: "l1", MemberID: "ann", LentAt: at, DueAt: at.Add(time.Hour)}),
		event(4, "book-emma", BookLent{LoanID: "l1", MemberID: "ann", LentAt: at, DueAt: at.Add(2 * time.Hour)}),
		event(5, "account-ann", BookLent{LoanID: "l9"}), // not a book's stream
		event(6, "book-dune", HoldPlaced{MemberID: "ann"}),
		event(7, "book-emma", LoanRenewed{LoanID: "l1", MemberID: "ann", DueAt: at.Add(5 * time.Hour)}),
		event(8, "book-emma", LoanRenewed{LoanID: "l2", MemberID: "ann", DueAt: at.Add(9 * time.Hour)}), // no such loan
		event(9, "book-dune", BookReturned{LoanID: "l1", MemberID: "ann", ReturnedAt: at.Add(3 * time.Hour), DaysLate: 1}),
	}
	loans, err := MemberLoans(events)
	require.NoError(t, err)
	require.Len(t, loans, 2)
	require.Equal(t, "dune", loans[0].BookID)
	require.Equal(t, int64(3), loans[0].Position)
	require.False(t, loans[0].Open())
	require.Equal(t, at.Add(3*time.Hour), *loans[0].ReturnedAt)
	require.Equal(t, 1, *loans[0].DaysLate)
	require.Equal(t, "emma", loans[1].BookID)
	require.True(t, loans[1].Open(), "the same loan id on another book is another loan")
	require.Equal(t, at.Add(5*time.Hour), loans[1].DueAt, "the due date of the loan's last renewal")
	require.Equal(t, at.Add(time.Hour), loans[0].DueAt, "a renewal of another book's loan moves nothing here")
}

// A book event written by a newer release than this one is not passed over, as one that can't
// be read is: an erasure would count the member's loans short. It is an error to try again.
func TestMemberLoansRefuseAnEventOfANewerRelease(t *testing.T) {
	t.Parallel()
	lent := eventstore.Event{StreamID: "book-dune", Type: BookLent{}.EventType(), Position: 3,
		Data: json.RawMessage(`{"loanId":"l1","memberId":"ann"}`), Metadata: eventstore.Metadata{Schema: 2}}
	_, err := MemberLoans([]eventstore.Event{lent})
	require.True(t, errs.Is(err, errs.Unavailable), "%v", err)
	var newer *aggregate.NewerSchemaError
	require.ErrorAs(t, err, &newer)
	require.Equal(t, aggregate.NewerSchemaError{Type: "BookLent", Stored: 2, Current: 1}, *newer)
}
