package books

import (
	"time"

	"library/internal/calendar"
	"library/internal/errs"
	"library/internal/validate"
)

// Lost copies. A loan that has been overdue for its terms' LostAfter open days is declared lost
// (the lost-loans saga asks, on a timer: DeclareLost with At), or a librarian declares it lost at
// once, or records that the borrower says they brought it back though it is nowhere to be found
// (ClaimReturned). Either way the loan ends, on the book and on the member's account in one
// append as a return does, so that the member's limits free up and no more reminders go; the
// copy is on no shelf (Book.Missing: its status is lost or claimedReturned) and is neither lent
// nor held. A loan declared lost charges the member the copy's replacement price, its own or its
// material type's default by the rules, as a charge of its own on the account, in the same
// append. A missing copy that turns up is returned under its last loan (or by its barcode, at a
// book drop): LostCopyReturned puts it back on the shelf, or on the hold shelf for the next in
// line, and takes the charge back on the account in the same append.

// The statuses of a copy that is on no shelf (Book.Status).
const (
	StatusLost            = "lost"
	StatusClaimedReturned = "claimedReturned"
)

// Who declared a loan lost (LoanLost.By).
const (
	// LostByRules: the loan was overdue for its terms' LostAfter open days.
	LostByRules = "rules"
	// LostByLibrarian: a librarian declared it lost.
	LostByLibrarian = "librarian"
)

// LoanLost records that a loan ended with its copy lost, at LostAt, and that the member is
// charged Charge cents for it (0: no price is known, nothing is charged).
type LoanLost struct {
	LoanID   string    `json:"loanId"`
	MemberID string    `json:"memberId"`
	LostAt   time.Time `json:"lostAt"`
	Charge   int64     `json:"charge"`
	By       string    `json:"by"`
}

// ClaimedReturned records that a loan ended because its borrower says they returned the copy,
// which is not on the shelf: no charge, no more reminders, and the copy flagged for the desk
// to look for.
type ClaimedReturned struct {
	LoanID    string    `json:"loanId"`
	MemberID  string    `json:"memberId"`
	ClaimedAt time.Time `json:"claimedAt"`
}

// LostCopyReturned records that a copy lost or claimed returned (Was) came back under its last
// loan: it is on the shelf again, or held for the next in line by an event of the same append.
// Charge is what the book recorded charging for it, taken back on the member's account in the
// same append (0 for none).
type LostCopyReturned struct {
	LoanID     string    `json:"loanId"`
	MemberID   string    `json:"memberId"`
	ReturnedAt time.Time `json:"returnedAt"`
	Was        string    `json:"was"`
	Charge     int64     `json:"charge,omitempty"`
}

// EventType names the event in the log; never rename it.
func (LoanLost) EventType() string { return "LoanLost" }

// EventType names the event in the log; never rename it.
func (ClaimedReturned) EventType() string { return "ClaimedReturned" }

// EventType names the event in the log; never rename it.
func (LostCopyReturned) EventType() string { return "LostCopyReturned" }

// Missing is a copy on no shelf: lost, or claimed returned, since its loan LoanID ended.
type Missing struct {
	Status   string    `json:"status"`
	LoanID   string    `json:"loanId"`
	MemberID string    `json:"memberId"`
	Since    time.Time `json:"since"`
	Charge   int64     `json:"charge,omitempty"`
}

// applyLost folds the events of lost copies; ok is false for any other event.
func applyLost(b Book, e Event) (Book, bool) {
	switch e := e.(type) {
	case LoanLost:
		b.Loan = nil
		b.Missing = &Missing{Status: StatusLost, LoanID: e.LoanID, MemberID: e.MemberID, Since: e.LostAt, Charge: e.Charge}
	case ClaimedReturned:
		b.Loan = nil
		b.Missing = &Missing{Status: StatusClaimedReturned, LoanID: e.LoanID, MemberID: e.MemberID, Since: e.ClaimedAt}
	case LostCopyReturned:
		b.Missing = nil
	default:
		return b, false
	}
	return b, true
}

// LostAt is when a loan due at due is lost by a LostAfter of lostAfter open days: at the end of
// the lostAfter-th open day after the day it was due, on the library's clock, so that the
// member has that whole day to bring it back (the day it was due never counts, nor does a
// closed day). At that moment cal.LateDays(due, LostAt) is lostAfter.
func LostAt(cal calendar.Calendar, due time.Time, lostAfter int) time.Time {
	return cal.PickupUntil(due, calendar.Period{Days: max(lostAfter, 1)})
}

// missing refuses what can't be done with a copy on no shelf.
func missing(b Book, what string) error {
	if b.Missing == nil {
		return nil
	}
	return errs.E(errs.BookMissing, "book %s is recorded %s: it can't be %s until it is returned under loan %s",
		b.ID, statusWords(b.Missing.Status), what, b.Missing.LoanID)
}

func statusWords(status string) string {
	if status == StatusClaimedReturned {
		return "claimed returned"
	}
	return status
}

// DeclareLost asks that a loan end with its copy lost. Without At, a librarian declares the
// book's current loan lost now; a copy claimed returned under that loan may be declared lost
// too (the claim was not believed). With At, the rules ask, at the time the loan's timer came
// due: the loan is declared lost only if it is current and, by the calendar, overdue for its
// terms' LostAfter open days by At.
type DeclareLost struct {
	LoanID string     `json:"loanId"`
	At     *time.Time `json:"at,omitempty"`
}

// Validate checks the fields.
func (c DeclareLost) Validate() error { return validate.ID("loanId", c.LoanID) }

// DecideOn declares the loan lost at now (or At), charging the copy's replacement price on the
// rules (on). A loan lost already records nothing; one that is not the book's current loan is
// errs.LoanNotCurrent; one the rules ask about before its time, or that was made before the
// rules (no terms, no LostAfter), records nothing.
func (c DeclareLost) DecideOn(b Book, now time.Time, on Lending) ([]Event, error) {
	if !b.Added {
		return nil, errs.E(errs.NotFound, "there is no such book")
	}
	if m := b.Missing; m != nil && m.LoanID == c.LoanID && (m.Status == StatusLost || c.At != nil) {
		return nil, nil
	}
	at := now.UTC().Truncate(time.Second)
	lost := LoanLost{LoanID: c.LoanID, By: LostByLibrarian, Charge: on.replacementPrice(b)}
	switch {
	case b.Missing != nil && b.Missing.LoanID == c.LoanID: // claimed returned, now lost
		lost.MemberID = b.Missing.MemberID
	case b.Loan == nil || b.Loan.LoanID != c.LoanID:
		return nil, notCurrent(b, c.LoanID)
	case c.At != nil:
		lostAt, ok := on.lostAt(b)
		if !ok || c.At.Before(lostAt) {
			return nil, nil
		}
		at, lost.By, lost.MemberID = c.At.UTC(), LostByRules, b.Loan.MemberID
	default:
		lost.MemberID = b.Loan.MemberID
	}
	lost.LostAt = at
	return []Event{lost}, nil
}

// notCurrent refuses a command on a loan that is not the book's current one.
func notCurrent(b Book, loanID string) error {
	if b.HadLoan(loanID) {
		return errs.E(errs.LoanNotCurrent, "loan %s of book %s has ended", loanID, b.ID)
	}
	return errs.E(errs.LoanNotCurrent, "book %s has no loan %s", b.ID, loanID)
}

// ClaimReturned asks that the book's current loan end because its borrower says they returned
// the copy, which is not on the shelf.
type ClaimReturned struct {
	LoanID string `json:"loanId"`
}

// Validate checks the fields.
func (c ClaimReturned) Validate() error { return validate.ID("loanId", c.LoanID) }

// Decide ends the loan at now as claimed returned. A loan claimed returned already records
// nothing; one that is not the book's current loan (lost already, or returned) is
// errs.LoanNotCurrent.
func (c ClaimReturned) Decide(b Book, now time.Time) ([]Event, error) {
	switch {
	case !b.Added:
		return nil, errs.E(errs.NotFound, "there is no such book")
	case b.Missing != nil && b.Missing.LoanID == c.LoanID && b.Missing.Status == StatusClaimedReturned:
		return nil, nil
	case b.Loan == nil || b.Loan.LoanID != c.LoanID:
		return nil, notCurrent(b, c.LoanID)
	}
	return []Event{ClaimedReturned{LoanID: c.LoanID, MemberID: b.Loan.MemberID, ClaimedAt: now.UTC().Truncate(time.Second)}}, nil
}

// returnMissing is a missing copy's return at now: back on the shelf, or to the first in the
// book's own queue (a title's queue is the service's to fill).
func returnMissing(b Book, now time.Time, pickup time.Duration) []Event {
	back := []Event{LostCopyReturned{LoanID: b.Missing.LoanID, MemberID: b.Missing.MemberID,
		ReturnedAt: now.UTC().Truncate(time.Second), Was: b.Missing.Status, Charge: b.Missing.Charge}}
	return append(back, nextOnShelf(b, now, pickup, "")...)
}

// lostAt is when the rules declare the book's current loan lost: LostAt of its due time, on the
// calendar, by its terms' LostAfter. ok is false for a loan made before the rules, which keeps
// the terms it was made on, and those had no LostAfter: only a librarian declares it lost.
func (on Lending) lostAt(b Book) (time.Time, bool) {
	if b.Loan == nil || b.Loan.Terms == nil {
		return time.Time{}, false
	}
	var cal calendar.Calendar
	if on.Desk != nil {
		cal = on.Desk.Calendar
	}
	return LostAt(cal, b.Loan.DueAt, b.Loan.Terms.LostAfter), true
}

// replacementPrice is what a lost copy costs its borrower: its own price, or else its material
// type's default by the rules (0 without rules, or when no row sets one).
func (on Lending) replacementPrice(b Book) int64 {
	if b.ReplacementPrice > 0 {
		return b.ReplacementPrice
	}
	t, _, ok := on.terms(b)
	if !ok {
		return 0
	}
	return max(t.ReplacementPrice, 0)
}
