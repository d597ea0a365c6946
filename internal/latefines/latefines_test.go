package latefines_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/latefines"
	"library/internal/processor"
)

func bookEvent(t *testing.T, stream string, e books.Event) eventstore.Event {
	t.Helper()
	data, err := json.Marshal(e)
	require.NoError(t, err)
	return eventstore.Event{StreamID: stream, Version: 3, Position: 9, Type: e.EventType(), Data: data,
		Metadata: eventstore.Metadata{CorrelationID: "req-1"}}
}

// The saga charges daysLate * FinePerDay once per loan, however often it sees the return, and
// even when the fine per day has changed between two runs.
func TestLateFinesChargeOncePerLoan(t *testing.T) {
	ctx := context.Background()
	log := eventstore.NewMemory(nil)
	service := accounts.NewService(log, aggregate.Options{})
	returned := books.BookReturned{LoanID: "loan-1", MemberID: "alice", ReturnedAt: time.Now(), DaysLate: 3}
	e := bookEvent(t, "book-dune", returned)

	saga := latefines.Saga{Accounts: service, FinePerDay: 25}
	require.NoError(t, saga.Handle(ctx, e))
	require.NoError(t, saga.Handle(ctx, e), "a repeat is answered from the log")
	require.NoError(t, latefines.Saga{Accounts: service, FinePerDay: 40}.Handle(ctx, e),
		"a replay at another fine per day finds the loan fined")

	account, version, err := service.Get(ctx, "alice")
	require.NoError(t, err)
	require.EqualValues(t, 75, account.Balance)
	require.EqualValues(t, 1, version, "one FineCharged, nothing else")
	stream, err := log.ReadStream(ctx, "account-alice", 0)
	require.NoError(t, err)
	require.Equal(t, "late-return:loan-1", stream[0].Metadata.CommandID)
	require.Equal(t, "req-1", stream[0].Metadata.CorrelationID, "the fine traces back to the return")
	require.JSONEq(t, `{"amount":75,"reason":"returned 3 days late","loanId":"loan-1"}`, string(stream[0].Data))
}

// On-time returns, other events and other streams charge nothing; an unreadable return is
// parked rather than retried, and one written by a newer release pauses the saga.
func TestLateFinesIgnoresWhatIsNotALateReturn(t *testing.T) {
	ctx := context.Background()
	log := eventstore.NewMemory(nil)
	saga := latefines.Saga{Accounts: accounts.NewService(log, aggregate.Options{}), FinePerDay: 25}
	for _, e := range []eventstore.Event{
		bookEvent(t, "book-dune", books.BookReturned{LoanID: "loan-1", MemberID: "alice", DaysLate: 0}),
		bookEvent(t, "book-dune", books.BookLent{LoanID: "loan-1", MemberID: "alice"}),
		bookEvent(t, "shelf-dune", books.BookReturned{LoanID: "loan-1", MemberID: "alice", DaysLate: 4}),
	} {
		require.NoError(t, saga.Handle(ctx, e))
	}
	head, err := log.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, eventstore.Checkpoint{}, head, "nothing was charged")

	bad := eventstore.Event{StreamID: "book-dune", Type: "BookReturned", Data: json.RawMessage(`{"daysLate":"many"}`)}
	var park *processor.ParkError
	require.True(t, errors.As(saga.Handle(ctx, bad), &park))

	newer := eventstore.Event{StreamID: "book-dune", Type: "BookReturned", Data: json.RawMessage(`{"loanId":"loan-2","memberId":"alice","daysLate":2}`),
		Metadata: eventstore.Metadata{Schema: 2}}
	err = saga.Handle(ctx, newer)
	require.True(t, errs.Is(err, errs.Unavailable), "written by a newer release: the saga pauses, to be read by one: %v", err)
	require.False(t, errors.As(err, &park), "and parks nothing")
}

// A client that chose the saga's command id as its own Idempotency-Key can't dodge the fine.
func TestLateFinesChargeDespiteATakenCommandID(t *testing.T) {
	ctx := context.Background()
	service := accounts.NewService(eventstore.NewMemory(nil), aggregate.Options{})
	_, err := service.ChargeFine(ctx, "alice", accounts.ChargeFine{Amount: 100, Reason: "lost card"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = service.Pay(ctx, "alice", accounts.Pay{Amount: 1}, aggregate.Origin{CommandID: "late-return:loan-1"})
	require.NoError(t, err)

	saga := latefines.Saga{Accounts: service, FinePerDay: 25}
	e := bookEvent(t, "book-dune", books.BookReturned{LoanID: "loan-1", MemberID: "alice", DaysLate: 2})
	require.NoError(t, saga.Handle(ctx, e))
	require.NoError(t, saga.Handle(ctx, e))
	account, version, err := service.Get(ctx, "alice")
	require.NoError(t, err)
	require.EqualValues(t, 100-1+50, account.Balance, "the late fine is charged, once")
	require.EqualValues(t, 3, version)
}

// A fine's reason counts the days late in words that agree with the number.
func TestLateFinesReasonCountsTheDays(t *testing.T) {
	ctx := context.Background()
	log := eventstore.NewMemory(nil)
	saga := latefines.Saga{Accounts: accounts.NewService(log, aggregate.Options{}), FinePerDay: 25}
	for _, r := range []struct {
		loan string
		days int
	}{{"loan-1", 1}, {"loan-2", 2}} {
		require.NoError(t, saga.Handle(ctx, bookEvent(t, "book-dune", books.BookReturned{LoanID: r.loan, MemberID: "alice", DaysLate: r.days})))
	}
	stream, err := log.ReadStream(ctx, "account-alice", 0)
	require.NoError(t, err)
	require.Len(t, stream, 2)
	require.JSONEq(t, `{"amount":25,"reason":"returned 1 day late","loanId":"loan-1"}`, string(stream[0].Data))
	require.JSONEq(t, `{"amount":50,"reason":"returned 2 days late","loanId":"loan-2"}`, string(stream[1].Data))
}
