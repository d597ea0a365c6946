package loans

import (
	"context"
	"fmt"
	"time"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/circulation"
	"library/internal/eventstore"
	"library/internal/processor"
)

// Name is the name of the loans view model, and of its first build (its lease, its
// checkpoint); its later builds are loans@2, loans@3... Never rename it.
const Name = "loans"

// Version is the version of the view's code. Bump it whenever the shape of loans_books,
// or what the view writes there, changes: the next release then builds the view anew, beside
// the one that answers, which it replaces once it has caught up (package processor). Version 2
// keeps why a loan's due time moved (books.DueDateMoved): from when, for what, and the day
// (MovedFrom).
const Version = 2

// MovedFrom is the first version whose tables keep why a due time moved: reads of an older
// build show no move, and writes to one keep the due time alone.
const MovedFrom = 2

// ReadsFrom is the oldest version of the view whose tables this code's reads can read: keep it
// when a bump leaves the tables as the reads see them, raise it to Version otherwise.
const ReadsFrom = 1

// Versions are the view's: code, or Version when code is 0 (tests build other versions).
func Versions(code int) processor.Versions {
	if code == 0 {
		code = Version
	}
	return processor.Versions{Code: code, ReadsFrom: min(ReadsFrom, code)}
}

// Loan is a current loan as the view keeps it.
type Loan struct {
	BookID   string
	Title    string
	LoanID   string
	MemberID string
	LentAt   time.Time
	DueAt    time.Time
	// Renewals counts the times the loan was renewed.
	Renewals int
	// RenewalsAllowed is how many renewals the loan's terms allow (the circulation rules' when
	// it was made or last renewed); nil for a loan on no terms, which RENEWALS_MAX bounds.
	RenewalsAllowed *int
	// DueMoved is why the due time is not the lending's or the last renewal's: the last move of
	// it (books.DueDateMoved) since then; nil when there was none.
	DueMoved *DueMove
}

// DueMove is why a loan's due time moved: it was From, and moved for Reason (books.MovedClosed:
// the library closes on Date, written as 2026-12-24).
type DueMove struct {
	From   time.Time
	Reason string
	Date   string
}

// key is the loan's place in the order of pages.
func (l Loan) key() Key { return Key{DueAt: l.DueAt, BookID: l.BookID, LoanID: l.LoanID} }

// View is the loans view model: every current loan, kept up to date from the log by the holder
// of the "loans" lease, and readable on every replica.
type View interface {
	processor.View
	// List returns the page of loans that filter chooses, in (dueAt, bookId, loanId) order,
	// with the view's position, both as of one moment. The filter is one that ParseFilter
	// could make.
	List(ctx context.Context, filter Filter) (Page, processor.Position, error)
}

// Processor is the view as a processor to run.
func Processor(v View) processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindViewModel, View: v, Types: []string{
		books.BookAdded{}.EventType(), books.BookLent{}.EventType(), books.LoanRenewed{}.EventType(),
		books.BookReturned{}.EventType(), books.DueDateMoved{}.EventType(),
		books.LoanLost{}.EventType(), books.ClaimedReturned{}.EventType(), accounts.MemberErased{}.EventType()},
		DataOnly: true}
}

// A Change is what one event does to the view: Titled, Lent, Renewed, Moved, Returned or
// Erased.
type Change interface{ isChange() }

// Titled is a book that joined the catalogue under a title.
type Titled struct{ BookID, Title string }

// Lent is a book lent; the loan's title is filled in by the store.
type Lent struct{ Loan Loan }

// Renewed is a loan whose due time moved, which counts one renewal more.
type Renewed struct {
	BookID, LoanID string
	DueAt          time.Time
	// RenewalsAllowed is what the terms the renewal took allow, nil for a renewal on no terms.
	RenewalsAllowed *int
}

// Moved is a loan whose due time moved for a reason (books.DueDateMoved), which is no renewal.
type Moved struct {
	BookID, LoanID string
	DueAt          time.Time
	Why            DueMove
}

// Returned is a book whose loan ended: returned, lost or claimed returned.
type Returned struct{ BookID string }

// Erased is a member forgotten: no loan of theirs stays in the view.
type Erased struct{ MemberID string }

func (Titled) isChange()   {}
func (Lent) isChange()     {}
func (Renewed) isChange()  {}
func (Moved) isChange()    {}
func (Returned) isChange() {}
func (Erased) isChange()   {}

// Changes decodes what a batch does to the view: the events of book streams, as the Book
// aggregate decodes them, and members' erasures. Everything else is skipped.
func Changes(events []eventstore.Event) ([]Change, error) {
	erasure := accounts.MemberErased{}.EventType()
	var out []Change
	for _, e := range events {
		bookID, isBook := books.BookID(e)
		memberID, isAccount := accounts.MemberID(e)
		switch {
		case isBook:
			event, err := books.Decode(e)
			if err != nil {
				return nil, fmt.Errorf("loans: event %s at position %d: %w", e.Type, e.Position, err)
			}
			if c := bookChange(bookID, event); c != nil {
				out = append(out, c)
			}
		case isAccount && e.Type == erasure:
			out = append(out, Erased{MemberID: memberID})
		}
	}
	return out, nil
}

// bookChange is what one book event does to the view, nil for nothing.
func bookChange(bookID string, event books.Event) Change {
	switch e := event.(type) {
	case books.BookAdded:
		return Titled{BookID: bookID, Title: e.Title}
	case books.BookLent:
		return Lent{Loan: Loan{BookID: bookID, LoanID: e.LoanID, MemberID: e.MemberID, LentAt: stored(e.LentAt), DueAt: stored(e.DueAt),
			RenewalsAllowed: renewalsAllowed(e.Terms)}}
	case books.LoanRenewed:
		return Renewed{BookID: bookID, LoanID: e.LoanID, DueAt: stored(e.DueAt), RenewalsAllowed: renewalsAllowed(e.Terms)}
	case books.DueDateMoved:
		return Moved{BookID: bookID, LoanID: e.LoanID, DueAt: stored(e.DueAt), Why: DueMove{From: stored(e.From), Reason: e.Reason, Date: e.Date}}
	case books.BookReturned, books.LoanLost, books.ClaimedReturned: // the loan ended
		return Returned{BookID: bookID}
	}
	return nil
}

// stored is a time as the view keeps it: in UTC, to the microsecond, as PostgreSQL keeps it
// (pgx drops the nanoseconds), so that both stores order, page and show loans alike.
func stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// renewalsAllowed is what terms allow, nil without terms.
func renewalsAllowed(terms *circulation.LoanTerms) *int {
	if terms == nil {
		return nil
	}
	return new(terms.RenewalsAllowed)
}
