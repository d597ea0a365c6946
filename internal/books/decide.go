package books

import (
	"fmt"
	"time"

	"library/internal/calendar"
	"library/internal/circulation"

	"library/internal/errs"
	"library/internal/isbn"
	"library/internal/validate"
)

// Longest title and author name a book may have, and the longest loan.
const (
	MaxTitleLength  = 300
	MaxAuthorLength = 300
	MaxLoanPeriod   = 366 * 24 * time.Hour
)

// Every command has Validate, which checks its fields without looking at any state, and Decide,
// which takes the state and a valid command and returns the events to record (none when there
// is nothing to do) or the reason to refuse. The service validates before it loads anything,
// so bad input is refused even while the store is down.

// AddBook asks to add a book to the catalogue on its own (POST /books): a copy of the title
// that holds its ISBN, or of the title made for it (Service.Add). ISBN and Barcode are optional;
// a book added without them is one as clients added them before titles.
type AddBook struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	// ISBN is the 13 digits of its ISBN-13, once Checked.
	ISBN    string `json:"isbn,omitempty"`
	Barcode string `json:"barcode,omitempty"`
	// MaterialType and ReplacementPrice (cents) are optional, as AddCopy's.
	MaterialType     string `json:"materialType,omitempty"`
	ReplacementPrice int64  `json:"replacementPrice,omitempty"`
	// TitleID is the title the book joins: not the client's to send, but found by the service
	// from the ISBN, or the title and author, before the command is decided.
	TitleID string `json:"-"`
}

// Checked checks the fields and returns the command in the form the book keeps: an ISBN as
// its 13 digits, a barcode in capitals.
func (c AddBook) Checked() (AddBook, error) {
	err := validate.All(
		validate.ID("id", c.ID),
		validate.Text("title", c.Title, MaxTitleLength),
		validate.Text("author", c.Author, MaxAuthorLength),
	)
	if err != nil {
		return AddBook{}, err
	}
	if c.ISBN != "" {
		if c.ISBN, err = isbn.Parse("isbn", c.ISBN); err != nil {
			return AddBook{}, err
		}
	}
	if c.Barcode != "" {
		if c.Barcode, err = Barcode("barcode", c.Barcode); err != nil {
			return AddBook{}, err
		}
	}
	if c.MaterialType, err = checkMaterial(c.MaterialType, c.ReplacementPrice); err != nil {
		return AddBook{}, err
	}
	return c, nil
}

// Validate checks the fields.
func (c AddBook) Validate() error {
	_, err := c.Checked()
	return err
}

// Decide adds the book, a copy of c.TitleID; a book is added once.
func (c AddBook) Decide(b Book) ([]Event, error) {
	if b.Added {
		return nil, errs.E(errs.BookAlreadyExists, "book %s already exists", c.ID)
	}
	return []Event{BookAdded{ID: c.ID, TitleID: c.TitleID, Barcode: c.Barcode, Title: c.Title, Author: c.Author,
		MaterialType: c.MaterialType, ReplacementPrice: c.ReplacementPrice}}, nil
}

// LendBook asks to lend a book to a member until DueAt; nil means the default loan period.
// Offline, when set, reports a loan a kiosk made while it was offline (offline.go): lent at its
// time, over the account's rules. (The fields before it have no JSON names: their Go names are
// the payload's fingerprint, and stay.)
type LendBook struct {
	LoanID   string
	MemberID string
	DueAt    *time.Time
	Offline  *Offline `json:",omitempty"`
	// Overrode are the codes of the account's rules an offline loan overrides: not the client's
	// to send, but found by the service on the member's account before the command is decided.
	Overrode []string `json:"-"`
}

// Validate checks the fields.
func (c LendBook) Validate() error {
	err := validate.All(validate.ID("loanId", c.LoanID), validate.MemberID("memberId", c.MemberID))
	if err == nil && c.Offline != nil {
		err = c.Offline.Validate()
	}
	return err
}

// Decide lends the book at time now for loanPeriod, on no rules (DecideOn).
func (c LendBook) Decide(b Book, now time.Time, loanPeriod time.Duration) ([]Event, error) {
	return c.DecideOn(b, now, Lending{Period: loanPeriod})
}

// DecideOn lends the book at time now, or, offline, at the time the kiosk gives, on the rules
// for the borrower's group and the copy's type (on): due when the calendar says the loan
// period ends, with the terms recorded in BookLent. Lending under a loan id the book has
// already had records nothing: that is a repeat of an earlier request, even if the loan has
// ended since. A due time given must come after the lending time, and at most MaxLoanPeriod
// after it. A type the rules do not lend to the group is refused (errs.NotLendable), but for
// a loan made offline, which BookLent says overrode it.
func (c LendBook) DecideOn(b Book, now time.Time, on Lending) ([]Event, error) {
	if !b.Added {
		return nil, errs.E(errs.NotFound, "there is no such book")
	}
	if b.HadLoan(c.LoanID) {
		if b.Loan != nil && b.Loan.LoanID == c.LoanID && b.Loan.MemberID != c.MemberID {
			return nil, errs.E(errs.BookAlreadyLent, "book %s is already lent under loan %s, to another member", b.ID, c.LoanID)
		}
		return nil, nil
	}
	lentAt, err := c.lentAt(now)
	if err != nil {
		return nil, err
	}
	if b.Loan != nil {
		return nil, errs.E(errs.BookAlreadyLent, "book %s is already lent under another loan", b.ID)
	}
	if err := missing(b, "lent"); err != nil {
		return nil, err
	}
	if b.Held != nil && b.Held.MemberID != c.MemberID {
		return nil, errs.E(errs.BookOnHold, "book %s is on the hold shelf for another member until %s", b.ID, b.Held.Until.Format(time.RFC3339))
	}
	t, terms, _ := on.terms(b)
	if err := on.mayLend(b, t); err != nil {
		if c.Offline == nil {
			return nil, err
		}
		c.Overrode = append(c.Overrode, string(errs.NotLendable))
	}
	dueAt, err := c.dueAt(lentAt, on.due(lentAt, t))
	if err != nil {
		return nil, err
	}
	e := c.lent(lentAt, dueAt)
	e.Terms = terms
	lent := []Event{e}
	if b.Held != nil { // held for this member: the hold is fulfilled
		lent = append(lent, HoldFulfilled{MemberID: c.MemberID})
	}
	return lent, nil
}

// dueAt is the due time the command gives, checked against lentAt, or else byRules.
func (c LendBook) dueAt(lentAt, byRules time.Time) (time.Time, error) {
	if c.DueAt == nil {
		return byRules, nil
	}
	dueAt := c.DueAt.UTC()
	if !dueAt.After(lentAt) || dueAt.Sub(lentAt) > MaxLoanPeriod {
		return time.Time{}, errs.E(errs.InvalidRequest, "dueAt must come after the lending time (%s), by at most %d days",
			lentAt.Format(time.RFC3339), MaxLoanPeriod/(24*time.Hour))
	}
	return dueAt, nil
}

// ReturnBook asks to end a loan: the loan LoanID, or, with Current, whatever loan the book is
// on (a book dropped at a kiosk or a sorter is returned by its barcode alone, and the kiosk's
// retry must ask for the same thing as its first try, whichever loan that ended).
type ReturnBook struct {
	LoanID  string `json:"loanId"`
	Current bool   `json:"current,omitempty"`
}

// Validate checks the fields.
func (c ReturnBook) Validate() error {
	if c.Current {
		if c.LoanID != "" {
			return errs.E(errs.InvalidRequest, "a return of the current loan names no loanId")
		}
		return nil
	}
	return validate.ID("loanId", c.LoanID)
}

// Decide ends the loan at time now, on no calendar (DecideOn).
func (c ReturnBook) Decide(b Book, now time.Time, pickup time.Duration) ([]Event, error) {
	return c.DecideOn(b, now, pickup, nil)
}

// DecideOn ends the loan at time now. Returning a loan that has already been returned, or the
// current loan of a book on the shelf, records nothing. A copy lost or claimed returned,
// returned under its last loan or as the current one, is back (LostCopyReturned). When members
// wait for the book, it goes to the hold shelf for the first of them, for pickup. A loan made on terms is returned
// with its late open days on cal and the fine they cost on its terms (BookReturned.Fine).
func (c ReturnBook) DecideOn(b Book, now time.Time, pickup time.Duration, cal *calendar.Calendar) ([]Event, error) {
	if !b.Added {
		return nil, errs.E(errs.NotFound, "there is no such book")
	}
	if b.Missing != nil && (c.Current || b.Missing.LoanID == c.LoanID) {
		return returnMissing(b, now, pickup), nil // lost, or claimed returned, and found
	}
	if c.Current {
		if b.Loan == nil {
			return nil, nil
		}
		c.LoanID = b.Loan.LoanID
	}
	if b.Loan == nil || b.Loan.LoanID != c.LoanID {
		if b.HadLoan(c.LoanID) {
			return nil, nil // already returned
		}
		return nil, errs.E(errs.LoanMismatch, "book %s is not lent under loan %s", b.ID, c.LoanID)
	}
	returnedAt := now.UTC().Truncate(time.Second)
	late, fine := lateFine(b, returnedAt, cal)
	back := []Event{BookReturned{
		LoanID:     c.LoanID,
		MemberID:   b.Loan.MemberID,
		ReturnedAt: returnedAt,
		DaysLate:   DaysLate(b.Loan.DueAt, returnedAt),
		LateDays:   late,
		Fine:       fine,
	}}
	return append(back, nextOnShelf(b, now, pickup, "")...), nil
}

// DaysLate counts the whole days between due and returned: 0 when returned on time, 1 from 24
// hours after the due time, and so on. (A time.Duration stops growing after 292 years; due
// times are bounded by MaxLoanPeriod, so that is never reached.)
func DaysLate(due, returned time.Time) int {
	if !returned.After(due) {
		return 0
	}
	return int(returned.Sub(due) / (24 * time.Hour))
}

// RenewLoan asks to move a current loan's due time: to the later of now and its due time, plus
// the loan period, at most MaxRenewals times. Borrower, when set, is the member who asks: a
// member renews their own loans only (staff leave it empty).
type RenewLoan struct {
	LoanID   string `json:"loanId"`
	Borrower string `json:"borrower,omitempty"`
}

// Validate checks the fields.
func (c RenewLoan) Validate() error { return validate.ID("loanId", c.LoanID) }

// Decide renews the loan at time now for loanPeriod, at most maxRenewals times, on no rules.
func (c RenewLoan) Decide(b Book, now time.Time, loanPeriod time.Duration, maxRenewals int) ([]Event, error) {
	return c.DecideOn(b, now, Lending{Period: loanPeriod, MaxRenewals: maxRenewals})
}

// DecideOn renews the loan at time now on the rules as they are now (on): as often as they
// allow the borrower's group for the copy's type, to when the calendar says their loan period
// from the later of now and the due time ends, and on their terms from now (LoanRenewed.Terms).
// Only the book's current loan can be renewed (LoanNotCurrent), and only as often as the rules
// say (RenewalLimitReached, naming the rule).
func (c RenewLoan) DecideOn(b Book, now time.Time, on Lending) ([]Event, error) {
	switch {
	case !b.Added:
		return nil, errs.E(errs.NotFound, "there is no such book")
	case b.Loan == nil || b.Loan.LoanID != c.LoanID:
		if b.HadLoan(c.LoanID) {
			return nil, errs.E(errs.LoanNotCurrent, "loan %s of book %s has ended: only a current loan can be renewed", c.LoanID, b.ID)
		}
		return nil, errs.E(errs.LoanNotCurrent, "book %s has no loan %s", b.ID, c.LoanID)
	case c.Borrower != "" && b.Loan.MemberID != c.Borrower:
		return nil, errs.E(errs.Forbidden, "loan %s is not yours: a member renews their own loans", c.LoanID)
	case len(b.queue) > 0:
		return nil, errs.E(errs.HoldsWaiting, "%s for book %s: return it for them",
			errs.Count(len(b.queue), "member waits", "members wait"), b.ID)
	}
	t, terms, _ := on.terms(b)
	if most := on.maxRenewals(t); b.Loan.Renewals >= most {
		return nil, errs.E(errs.RenewalLimitReached, "loan %s was renewed %s already, as often as %s; return the book",
			c.LoanID, errs.Count(b.Loan.Renewals, "time", "times"), renewalRule(on, b, most))
	}
	from := b.Loan.DueAt
	if at := now.UTC().Truncate(time.Second); at.After(from) {
		from = at
	}
	return []Event{LoanRenewed{LoanID: c.LoanID, DueAt: on.due(from, t), MemberID: b.Loan.MemberID, Terms: terms}}, nil
}

// renewalRule names the rule a renewal reached: "a loan may be", or, on rules, "the rules allow
// a dvd loan for adult (2)".
func renewalRule(on Lending, b Book, most int) string {
	if on.Desk == nil {
		return "a loan may be"
	}
	return fmt.Sprintf("the rules allow a %s loan for %s (%d)", b.Type(), circulation.GroupOr(on.Group), most)
}
