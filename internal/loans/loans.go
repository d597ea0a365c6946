package loans

import (
	"context"
	"fmt"
	"time"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/processor"
)

// Name is the name of the loans view model: its lease, its checkpoint. Never rename it.
const Name = "loans"

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
}

// key is the loan's place in the order of pages.
func (l Loan) key() Key { return Key{DueAt: l.DueAt, BookID: l.BookID, LoanID: l.LoanID} }

// View is the loans view model: every current loan, kept up to date from the log by the holder
// of the "loans" lease, and readable on every replica.
type View interface {
	processor.ViewModel
	// List returns the page of loans that filter chooses, in (dueAt, bookId, loanId) order,
	// with the view's position, both as of one moment. The filter is one that ParseFilter
	// could make.
	List(ctx context.Context, filter Filter) (Page, processor.Position, error)
}

// Processor is the view as a processor to run.
func Processor(v View) processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindViewModel, ViewModel: v}
}

// A change is what one event does to the view.
type change interface{ isChange() }

// titled: a book joined the catalogue under a title.
type titled struct{ bookID, title string }

// lent: a book was lent; the loan's title is filled in by the store.
type lent struct{ loan Loan }

// renewed: a loan's due time moved, and it counts one renewal more.
type renewed struct {
	bookID, loanID string
	dueAt          time.Time
}

// returned: a book's loan ended.
type returned struct{ bookID string }

// erased: a member was forgotten; no loan of theirs stays in the view.
type erased struct{ memberID string }

func (titled) isChange()   {}
func (lent) isChange()     {}
func (renewed) isChange()  {}
func (returned) isChange() {}
func (erased) isChange()   {}

// changes decodes what a batch does to the view: the events of book streams, as the Book
// aggregate decodes them, and members' erasures. Everything else is skipped.
func changes(events []eventstore.Event) ([]change, error) {
	bookType, accountType := books.Type(), accounts.Type()
	erasure := accounts.MemberErased{}.EventType()
	var out []change
	for _, e := range events {
		switch {
		case bookType.Owns(e):
			event, err := bookType.Decode(e)
			if err != nil {
				return nil, fmt.Errorf("loans: event %s at position %d: %w", e.Type, e.Position, err)
			}
			if c := bookChange(bookType.ID(e.StreamID), event); c != nil {
				out = append(out, c)
			}
		case accountType.Owns(e) && e.Type == erasure:
			out = append(out, erased{memberID: accountType.ID(e.StreamID)})
		}
	}
	return out, nil
}

// bookChange is what one book event does to the view, nil for nothing.
func bookChange(bookID string, event books.Event) change {
	switch e := event.(type) {
	case books.BookAdded:
		return titled{bookID: bookID, title: e.Title}
	case books.BookLent:
		return lent{loan: Loan{BookID: bookID, LoanID: e.LoanID, MemberID: e.MemberID, LentAt: stored(e.LentAt), DueAt: stored(e.DueAt)}}
	case books.LoanRenewed:
		return renewed{bookID: bookID, loanID: e.LoanID, dueAt: stored(e.DueAt)}
	case books.BookReturned:
		return returned{bookID: bookID}
	}
	return nil
}

// stored is a time as the view keeps it: in UTC, to the microsecond, as PostgreSQL keeps it
// (pgx drops the nanoseconds), so that both stores order, page and show loans alike.
func stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
