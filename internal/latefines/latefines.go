package latefines

import (
	"context"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/config"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/validate"
)

// Name is the name of the late-fines saga: its lease, its checkpoint. Never rename it.
const Name = "late-fines"

// DefaultFinePerDay is the fine, in cents, for each day a book comes back late.
const DefaultFinePerDay = config.DefaultFinePerDay

// Saga is the saga that fines late returns: a BookReturned with a fine (a loan made on the
// circulation rules' terms: its late open days by the calendar, priced and capped by its own
// terms when it came back) charges that fine to the member's account; one without (a loan
// made before the rules) charges daysLate * FinePerDay cents.
//
// It charges each loan once however often it runs, which a replay from the start of the log
// relies on. The command id is "late-return:<loanId>", so a repeat within the account's
// remembered command ids is answered from the log; and the fine carries the loan id, so an
// account records nothing for a loan it has already been fined for, however old the loan. The
// saga looks first and runs no command for a loan already fined, so a replay writes nothing.
//
// A loan id names one loan in the whole library: two loans under one id, even of two books,
// are fined once between them.
type Saga struct {
	Accounts   Charger
	FinePerDay int64
}

// Charger is what the saga needs of members' accounts (accounts.Service is one): a look at the
// account, to charge no loan already fined, and the fine itself.
type Charger interface {
	// Get returns a member's account and its version, or errs.NotFound when nothing has
	// happened to it yet.
	Get(ctx context.Context, memberID string) (accounts.Account, int64, error)
	// ChargeFine runs the chargeFine command on a member's account.
	ChargeFine(ctx context.Context, memberID string, c accounts.ChargeFine, o aggregate.Origin) (aggregate.Result, error)
}

// Processor is the saga as a processor to run.
func (l Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: l, Types: []string{books.BookReturned{}.EventType()}}
}

// Handle implements processor.Handler.
func (l Saga) Handle(ctx context.Context, e eventstore.Event) error {
	if _, ok := books.BookID(e); !ok || e.Type != (books.BookReturned{}).EventType() {
		return nil
	}
	decoded, err := books.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	returned, _ := decoded.(books.BookReturned)
	fine, ok := l.fine(returned)
	if !ok {
		return nil
	}
	// A loan already fined needs no command at all. Checking first keeps a replay of the saga
	// from writing anything, not even the marker of a repeated command.
	account, _, err := l.Accounts.Get(ctx, returned.MemberID)
	switch {
	case errs.Is(err, errs.NotFound):
	case err != nil:
		return err
	case account.Fined(returned.LoanID):
		return nil
	}
	origin := aggregate.Origin{CommandID: "late-return:" + returned.LoanID, CorrelationID: e.Metadata.CorrelationID,
		Actor: eventstore.Actor{Subject: Name, Role: "system"}}
	_, err = l.Accounts.ChargeFine(ctx, returned.MemberID, fine, origin)
	if errs.Is(err, errs.IdempotencyKeyReused) {
		// The command id is taken on this account by another command: a fine of this loan
		// charged at another FINE_PER_DAY before a replay, or a client that chose this string
		// as its Idempotency-Key. The fine's loan id still charges the loan at most once, so
		// charge it under an id of its own.
		origin.CommandID = ""
		_, err = l.Accounts.ChargeFine(ctx, returned.MemberID, fine, origin)
	}
	switch {
	case err == nil, errs.Is(err, errs.Gone): // an erased member is fined no more
		return nil
	case errs.Is(err, errs.InvalidRequest):
		return processor.Park(err.Error())
	default:
		return err
	}
}

// fine is the fine a return charges, and false for none: its own Fine, for the open days late
// it records; or, for a loan from before the rules, DaysLate times FinePerDay.
func (l Saga) fine(returned books.BookReturned) (accounts.ChargeFine, bool) {
	if returned.Fine != nil {
		if *returned.Fine <= 0 {
			return accounts.ChargeFine{}, false
		}
		return accounts.ChargeFine{Amount: min(*returned.Fine, validate.MaxAmount), LoanID: returned.LoanID,
			Reason: "returned " + errs.Count(returned.LateDays, "day", "days") + " late"}, true
	}
	if returned.DaysLate <= 0 || l.FinePerDay <= 0 {
		return accounts.ChargeFine{}, false
	}
	return accounts.ChargeFine{Amount: min(int64(returned.DaysLate)*l.FinePerDay, validate.MaxAmount), LoanID: returned.LoanID,
		Reason: "returned " + errs.Count(returned.DaysLate, "day", "days") + " late"}, true
}
