package accounts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/validate"
)

// LateFinesName is the name of the late-fines saga: its lease, its checkpoint. Never rename it.
const LateFinesName = "late-fines"

// DefaultFinePerDay is the fine, in cents, for each day a book comes back late.
const DefaultFinePerDay = 25

// LateFines is the saga that fines late returns: a BookReturned with daysLate > 0 charges
// daysLate * FinePerDay cents to the member's account.
//
// It charges each loan once however often it runs, which a replay from the start of the log
// relies on. The command id is "late-return:<loanId>", so a repeat within the account's
// remembered command ids is answered from the log; and the fine carries the loan id, so an
// account records nothing for a loan it has already been fined for, however old the loan.
type LateFines struct {
	Accounts   *Service
	FinePerDay int64
}

// Processor is the saga as a processor to run.
func (l LateFines) Processor() processor.Processor {
	return processor.Processor{Name: LateFinesName, Kind: processor.KindSaga, Handler: l}
}

// Handle implements processor.Handler.
func (l LateFines) Handle(ctx context.Context, e eventstore.Event) error {
	if e.Type != (books.BookReturned{}).EventType() || !strings.HasPrefix(e.StreamID, books.Type().Name+"-") {
		return nil
	}
	var returned books.BookReturned
	if err := json.Unmarshal(e.Data, &returned); err != nil {
		return processor.Park(fmt.Sprintf("BookReturned can't be read: %v", err))
	}
	if returned.DaysLate <= 0 {
		return nil
	}
	fine := ChargeFine{
		Amount: min(int64(returned.DaysLate)*l.FinePerDay, validate.MaxAmount),
		Reason: fmt.Sprintf("returned %d days late", returned.DaysLate),
		LoanID: returned.LoanID,
	}
	origin := aggregate.Origin{CommandID: "late-return:" + returned.LoanID, CorrelationID: e.Metadata.CorrelationID}
	_, err := l.Accounts.ChargeFine(ctx, returned.MemberID, fine, origin)
	switch {
	case err == nil:
		return nil
	case errs.Is(err, errs.IdempotencyKeyReused):
		// The loan's command id was used for another fine of this loan, such as one charged at
		// another FINE_PER_DAY before a replay: the loan has been fined.
		return nil
	case errs.Is(err, errs.InvalidRequest):
		return processor.Park(err.Error())
	default:
		return err
	}
}
