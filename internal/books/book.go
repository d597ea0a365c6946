// Package books is the library's copies and their loans: the Book aggregate (its events,
// commands and decisions, plain Go with no I/O), its snapshot codec, and the service that runs
// its commands through package aggregate. A book is one physical copy of a title (package
// titles, which this package does not import: it asks for what it needs through Titles). It
// imports no HTTP or database package: the catalog view model behind GET /books is package
// catalog, the HTTP handlers are package booksapi.
//
// A book is added once, lent under a loan id chosen by the client, and returned under that loan
// id. Loan ids make lending and returning idempotent in the domain itself: lending again under
// a loan the book has already had, or returning a loan already returned, records nothing,
// however long after the first request the repeat comes.
//
// A copy's promises (copies.go): it is added in one append with its title's CopyAdded and its
// barcode's reservation, so a title, its copies and their barcodes agree at every append; a
// barcode belongs to one copy (errs.BarcodeTaken), kept by the log (package reservations), not a
// view; and a book added before books were copies reads as a copy of the title its title and
// author make (fold.go), which the adoption saga then gives a record.
//
// A lost copy's promises (lost.go): a loan ends lost, or claimed returned, once, in one append
// with its end and its charge on the member's account; the rules declare it lost only once it is
// overdue for its terms' LostAfter open days, never earlier whatever clock asks; and a copy on
// no shelf is neither lent nor held until it is returned, which takes its charge back in the
// same append.
package books

import (
	"maps"
	"time"

	"library/internal/circulation"
)

// Event is a Book event; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// BookAdded records that the book joined the catalogue, as a copy of the title TitleID, with its
// Barcode ("" for none). Title and Author are the title's as they were when the copy was added,
// kept with the copy for the readers of books' events (the catalog, loans and holds views, the
// loan emails), which read no title; the title's record is the title's stream.
//
// Schema version 2. Version 1, written before books were copies, had no titleId and no barcode:
// its upcaster makes the title id from the title and author (TitleIDOf).
type BookAdded struct {
	ID      string `json:"id"`
	TitleID string `json:"titleId"`
	Barcode string `json:"barcode,omitempty"`
	Title   string `json:"title"`
	Author  string `json:"author"`
	// MaterialType and ReplacementPrice (cents) are the copy's, when it was added with them.
	MaterialType     string `json:"materialType,omitempty"`
	ReplacementPrice int64  `json:"replacementPrice,omitempty"`
	// CallNumber is where the copy stands on the shelves, when it was added with one.
	CallNumber string `json:"callNumber,omitempty"`
	// BeforeTitles is set by the upcaster of version 1 alone: no title records this copy, nor
	// what happens to it, until the adoption saga adopts it (CopyAdopted).
	BeforeTitles bool `json:"beforeTitles,omitempty"`
}

// BookLent records that the book was lent to a member until DueAt.
//
// Offline is set for a loan a kiosk made while it was offline and reported later (offline.go):
// LentAt is the kiosk's time, OfflineReason what it said, and Overrode the codes of the
// account's rules that would have refused the loan when it was reported (errs.LoanLimitReached,
// errs.MemberBlocked), which it was recorded over.
type BookLent struct {
	LoanID        string    `json:"loanId"`
	MemberID      string    `json:"memberId"`
	LentAt        time.Time `json:"lentAt"`
	DueAt         time.Time `json:"dueAt"`
	Offline       bool      `json:"offline,omitempty"`
	OfflineReason string    `json:"offlineReason,omitempty"`
	Overrode      []string  `json:"overrode,omitempty"`
	// Terms are the circulation rules' terms the loan was made on (nil before there were rules).
	Terms *circulation.LoanTerms `json:"terms,omitempty"`
}

// BookReturned records that a loan ended. DaysLate counts whole days after the loan's due
// time.
type BookReturned struct {
	LoanID     string    `json:"loanId"`
	MemberID   string    `json:"memberId"`
	ReturnedAt time.Time `json:"returnedAt"`
	DaysLate   int       `json:"daysLate"`
	// LateDays are the open days late, by the library's calendar, and Fine what they cost on
	// the loan's terms, in cents: both set for a loan made on terms (BookLent.Terms), and the
	// fine the late-fines saga charges; nil Fine: a loan from before the rules, fined by the
	// saga's FINE_PER_DAY times DaysLate.
	LateDays int    `json:"lateDays,omitempty"`
	Fine     *int64 `json:"fine,omitempty"`
}

// LoanRenewed records that a loan's due time moved to DueAt. MemberID is the borrower's.
type LoanRenewed struct {
	LoanID   string    `json:"loanId"`
	DueAt    time.Time `json:"dueAt"`
	MemberID string    `json:"memberId,omitempty"`
	// Terms are the rules' terms the loan is on from this renewal (nil before there were rules).
	Terms *circulation.LoanTerms `json:"terms,omitempty"`
}

// EventType names the event in the log; never rename it.
func (LoanRenewed) EventType() string { return "LoanRenewed" }

// EventType names the event in the log; never rename it.
func (BookAdded) EventType() string { return "BookAdded" }

// EventType names the event in the log; never rename it.
func (BookLent) EventType() string { return "BookLent" }

// EventType names the event in the log; never rename it.
func (BookReturned) EventType() string { return "BookReturned" }

// Book is the state of one book, folded from its events.
type Book struct {
	Added bool
	ID    string
	// TitleID is the title the book is a copy of, Barcode its barcode ("" for none).
	TitleID string
	Barcode string
	Title   string
	Author  string
	// OnTitle is true for a copy whose title records it, and what happens to it (shelf.go):
	// one added since books were copies, or adopted since.
	OnTitle bool
	// MaterialType is the copy's as set ("" for none: Type says which), ReplacementPrice what
	// replacing it costs, in cents (0: nobody said).
	MaterialType     string
	ReplacementPrice int64
	// CallNumber is where the copy stands on the shelves ("" for none said).
	CallNumber string
	// Loan is the current loan, nil while the book is on the shelf.
	Loan *Loan
	// Missing is set while the copy is on no shelf: lost, or claimed returned (lost.go).
	Missing *Missing
	// loans holds every loan id the book has been lent under.
	loans map[string]bool
	// Held is the book's place on the hold shelf, nil when it is held for nobody.
	Held *Held
	// queue holds the members waiting for the book, first in line first.
	queue []string
}

// Loan is a book's current loan.
type Loan struct {
	LoanID   string    `json:"loanId"`
	MemberID string    `json:"memberId"`
	LentAt   time.Time `json:"lentAt"`
	DueAt    time.Time `json:"dueAt"`
	// Renewals counts the times the loan was renewed.
	Renewals int `json:"-"`
	// Terms are those the loan was made or last renewed on; nil for a loan made before the
	// circulation rules, whose fine is the late-fines saga's FINE_PER_DAY.
	Terms *circulation.LoanTerms `json:"-"`
}

// NewBook returns the state of a book with no events.
func NewBook() Book { return Book{loans: make(map[string]bool)} }

// Clone returns a copy of b that Apply can change without changing b. A Loan is replaced, never
// changed, so it is shared.
func Clone(b Book) Book {
	b.loans = maps.Clone(b.loans)
	return b
}

// Apply returns the state after e.
func Apply(b Book, e Event) Book {
	switch e := e.(type) {
	case BookAdded:
		b.Added, b.ID, b.TitleID, b.Barcode, b.Title, b.Author = true, e.ID, e.TitleID, e.Barcode, e.Title, e.Author
		b.OnTitle, b.MaterialType, b.ReplacementPrice, b.CallNumber = !e.BeforeTitles, e.MaterialType, e.ReplacementPrice, e.CallNumber
	case MaterialTypeSet:
		b.MaterialType = e.MaterialType
		if e.ReplacementPrice != nil {
			b.ReplacementPrice = *e.ReplacementPrice
		}
	case CopyAdopted:
		b.OnTitle, b.queue = true, nil
	case BookLent:
		b.Loan = &Loan{LoanID: e.LoanID, MemberID: e.MemberID, LentAt: e.LentAt, DueAt: e.DueAt, Terms: e.Terms}
		b.loans[e.LoanID] = true
	case BookReturned:
		b.Loan = nil
	case LoanRenewed:
		if b.Loan != nil && b.Loan.LoanID == e.LoanID {
			renewed := *b.Loan // a Loan is shared between states: replaced, never changed
			renewed.DueAt, renewed.Renewals = e.DueAt, renewed.Renewals+1
			if e.Terms != nil {
				renewed.Terms = e.Terms
			}
			b.Loan = &renewed
		}
	case DueDateMoved:
		if b.Loan != nil && b.Loan.LoanID == e.LoanID {
			moved := *b.Loan
			moved.DueAt = e.DueAt
			b.Loan = &moved
		}
	default:
		if lost, ok := applyLost(b, e); ok {
			return lost
		}
		b, _ = applyHold(b, e)
	}
	return b
}

// HadLoan reports whether the book has ever been lent under loanID.
func (b Book) HadLoan(loanID string) bool { return b.loans[loanID] }

// Status is "lent" while the book is on loan, "held" while it waits on the hold shelf for a
// member, "lost" or "claimedReturned" while it is on no shelf (lost.go), "available" otherwise.
func (b Book) Status() string {
	switch {
	case b.Loan != nil:
		return "lent"
	case b.Missing != nil:
		return b.Missing.Status
	case b.Held != nil:
		return "held"
	}
	return "available"
}
