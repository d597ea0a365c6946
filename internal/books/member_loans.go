package books

import (
	"time"

	"library/internal/errs"
	"library/internal/eventstore"
)

// MemberLoan is one loan of a book to a member, as the book's stream records it.
type MemberLoan struct {
	BookID, LoanID string
	LentAt, DueAt  time.Time
	// Position is where the loan's BookLent is in the log: what an email about it names.
	Position int64
	// ReturnedAt and DaysLate are set once the book came back (DaysLate not for a copy that
	// came back after its loan ended lost or claimed returned).
	ReturnedAt *time.Time
	DaysLate   *int
	// Ended says how a loan ended without a return, "lost" or "claimedReturned", and EndedAt
	// when; "" for a loan still open or returned.
	Ended   string
	EndedAt *time.Time
}

// Open reports whether the book is still on loan.
func (l MemberLoan) Open() bool { return l.ReturnedAt == nil && l.Ended == "" }

// MemberLoans folds a member's loans, in the order they were made, with the due date of their
// last renewal or move, from the book events that name the member (eventstore.Store's MemberEvents):
// for their export and their erasure, which read the log itself rather than a view that may be
// behind. Events of other streams and types, and any that can't be decoded, are passed over,
// but for one written by a newer release of the service than this one, which would be misread
// if it were: that is an errs.Unavailable error (aggregate.NewerSchemaError), to try again.
func MemberLoans(events []eventstore.Event) ([]MemberLoan, error) {
	type loanKey struct{ book, loan string } // a loan id names a loan of one book
	byLoan := map[loanKey]int{}
	var loans []MemberLoan
	for _, e := range events {
		bookID, ok := BookID(e)
		if !ok {
			continue
		}
		event, err := Decode(e)
		if errs.Is(err, errs.Unavailable) {
			return nil, err
		}
		if err != nil {
			continue
		}
		switch ev := event.(type) {
		case BookLent:
			byLoan[loanKey{bookID, ev.LoanID}] = len(loans)
			loans = append(loans, MemberLoan{BookID: bookID, LoanID: ev.LoanID, LentAt: ev.LentAt, DueAt: ev.DueAt, Position: e.Position})
		case LoanRenewed:
			if i, ok := byLoan[loanKey{bookID, ev.LoanID}]; ok {
				loans[i].DueAt = ev.DueAt
			}
		case DueDateMoved:
			if i, ok := byLoan[loanKey{bookID, ev.LoanID}]; ok {
				loans[i].DueAt = ev.DueAt
			}
		case BookReturned:
			if i, ok := byLoan[loanKey{bookID, ev.LoanID}]; ok {
				at, late := ev.ReturnedAt, ev.DaysLate
				loans[i].ReturnedAt, loans[i].DaysLate = &at, &late
			}
		case LoanLost, ClaimedReturned, LostCopyReturned:
			if i, ok := byLoan[loanKey{bookID, loanOf(ev)}]; ok {
				loans[i] = ended(loans[i], ev)
			}
		}
	}
	return loans, nil
}

// loanOf is the loan a loss, a claim or a missing copy's return is of.
func loanOf(e Event) string {
	switch e := e.(type) {
	case LoanLost:
		return e.LoanID
	case ClaimedReturned:
		return e.LoanID
	case LostCopyReturned:
		return e.LoanID
	}
	return ""
}

// ended is l after a loss, a claim, or the return of its copy after one.
func ended(l MemberLoan, e Event) MemberLoan {
	switch e := e.(type) {
	case LoanLost:
		at := e.LostAt
		l.Ended, l.EndedAt = StatusLost, &at
	case ClaimedReturned:
		at := e.ClaimedAt
		l.Ended, l.EndedAt = StatusClaimedReturned, &at
	case LostCopyReturned:
		at := e.ReturnedAt
		l.ReturnedAt = &at
	}
	return l
}
