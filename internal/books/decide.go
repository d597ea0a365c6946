package books

import (
	"time"

	"library/internal/errs"
	"library/internal/validate"
)

// Longest title and author name a book may have.
const (
	MaxTitleLength  = 300
	MaxAuthorLength = 300
)

// AddBook asks to add a book to the catalogue.
type AddBook struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
}

// Decide adds the book; a book is added once.
func (c AddBook) Decide(b Book) ([]Event, error) {
	if err := validate.All(
		validate.ID("id", c.ID),
		validate.Text("title", c.Title, MaxTitleLength),
		validate.Text("author", c.Author, MaxAuthorLength),
	); err != nil {
		return nil, err
	}
	if b.Added {
		return nil, errs.E(errs.BookAlreadyExists, "book %s already exists", c.ID)
	}
	return []Event{BookAdded(c)}, nil
}

// LendBook asks to lend a book to a member. A zero DueAt means "the default loan period from
// now".
type LendBook struct {
	LoanID   string
	MemberID string
	DueAt    time.Time
}

// Decide lends the book at time now. Lending under a loan id the book has already had records
// nothing: that is a repeat of an earlier request, even if the loan has ended since.
func (c LendBook) Decide(b Book, now time.Time, loanPeriod time.Duration) ([]Event, error) {
	if err := validate.All(validate.ID("loanId", c.LoanID), validate.ID("memberId", c.MemberID)); err != nil {
		return nil, err
	}
	if !b.Added {
		return nil, errs.E(errs.NotFound, "there is no such book")
	}
	if b.HadLoan(c.LoanID) {
		if b.Loan != nil && b.Loan.LoanID == c.LoanID && b.Loan.MemberID != c.MemberID {
			return nil, errs.E(errs.BookAlreadyLent, "book %s is already lent under loan %s, to another member", b.ID, c.LoanID)
		}
		return nil, nil
	}
	if b.Loan != nil {
		return nil, errs.E(errs.BookAlreadyLent, "book %s is already lent under another loan", b.ID)
	}
	lentAt := now.UTC().Truncate(time.Second)
	dueAt := c.DueAt.UTC()
	if c.DueAt.IsZero() {
		dueAt = lentAt.Add(loanPeriod)
	}
	return []Event{BookLent{LoanID: c.LoanID, MemberID: c.MemberID, LentAt: lentAt, DueAt: dueAt}}, nil
}

// ReturnBook asks to end a loan.
type ReturnBook struct {
	LoanID string `json:"loanId"`
}

// Decide ends the loan at time now. Returning a loan that has already been returned
// records nothing.
func (c ReturnBook) Decide(b Book, now time.Time) ([]Event, error) {
	if err := validate.ID("loanId", c.LoanID); err != nil {
		return nil, err
	}
	if !b.Added {
		return nil, errs.E(errs.NotFound, "there is no such book")
	}
	if b.Loan == nil || b.Loan.LoanID != c.LoanID {
		if b.HadLoan(c.LoanID) {
			return nil, nil // already returned
		}
		return nil, errs.E(errs.LoanMismatch, "book %s is not lent under loan %s", b.ID, c.LoanID)
	}
	returnedAt := now.UTC().Truncate(time.Second)
	return []Event{BookReturned{
		LoanID:     c.LoanID,
		MemberID:   b.Loan.MemberID,
		ReturnedAt: returnedAt,
		DaysLate:   DaysLate(b.Loan.DueAt, returnedAt),
	}}, nil
}

// DaysLate counts the whole days between due and returned: 0 when returned on time, 1 from 24
// hours after the due time, and so on.
func DaysLate(due, returned time.Time) int {
	if !returned.After(due) {
		return 0
	}
	return int(returned.Sub(due) / (24 * time.Hour))
}
