// Package shelves joins copies to their titles: it is the titles as package books needs them
// (books.Titles), on titles.Service, so that neither domain package imports the other. A copy's
// BookAdded and its title's CopyAdded (and TitleAdded, for the title made for a book added on
// its own) are written in one append; so is each move of a copy (lent, back, held for a member,
// given up) with what its title records of it (Moved), and a hold on one copy is placed in its
// title's queue.
package shelves

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/titles"
)

// Shelves are the titles as the books' copies need them.
type Shelves struct {
	Titles *titles.Service
}

var _ books.Titles = Shelves{}

// Record returns a title's title and authors, for its copies' BookAdded.
func (s Shelves) Record(ctx context.Context, titleID string) (string, []string, error) {
	t, _, err := s.Titles.Get(ctx, titleID)
	return t.Title, t.Authors, err
}

// WithISBN returns the id of the title that holds an ISBN now, "" for none.
func (s Shelves) WithISBN(ctx context.Context, isbn13 string) (string, error) {
	return s.Titles.WithISBN(ctx, isbn13)
}

// Shelve is a new copy's title's part of its append: CopyAdded, after TitleAdded for a title
// the copy brings the record of.
func (s Shelves) Shelve(ctx context.Context, c books.Shelving) (aggregate.Also, error) {
	shelve := titles.ShelveCopy{BookID: c.BookID, Barcode: c.Barcode}
	if r := c.Record; r != nil {
		record := titles.AddTitle{ID: c.TitleID, Title: r.Title, Authors: []string{r.Author}}
		if r.ISBN != "" {
			record.ISBN = &r.ISBN
		}
		shelve.Record = &record
	}
	return s.Titles.Shelve(ctx, c.TitleID, shelve)
}

// ReadQueue returns the title as the log holds it now, as a copy's command reads its queue.
func (s Shelves) ReadQueue(ctx context.Context, titleID string) (books.Queue, int64, error) {
	return s.Titles.ReadQueue(ctx, titleID)
}

// Moved is the title's part of a copy's append: each of the copy's events that moves it, as
// the title records it (lost or claimed returned: missing; found: shelved). BookAdded is not among them: the copy's title part of its adding
// (Shelve) records it.
func (s Shelves) Moved(_ context.Context, titleID string, version int64, bookID string, decided []books.Event) (aggregate.Also, error) {
	var events []titles.Event
	for _, e := range decided {
		switch e := e.(type) {
		case books.BookLent:
			events = append(events, titles.CopyLent{BookID: bookID, MemberID: e.MemberID})
		case books.HoldFulfilled:
			events = append(events, titles.TrapFulfilled{MemberID: e.MemberID, BookID: bookID})
		case books.BookReturned:
			events = append(events, titles.CopyShelved{BookID: bookID})
		case books.BookHeld:
			events = append(events, titles.HoldTrapped{MemberID: e.MemberID, BookID: bookID, Until: e.Until})
		case books.HoldExpired:
			events = append(events, titles.TrapExpired{MemberID: e.MemberID, BookID: bookID, Until: e.Until})
		case books.HoldCancelled:
			events = append(events, titles.TitleHoldCancelled{MemberID: e.MemberID, BookID: bookID})
		case books.LoanLost:
			events = append(events, titles.CopyMissing{BookID: bookID, Status: books.StatusLost})
		case books.ClaimedReturned:
			events = append(events, titles.CopyMissing{BookID: bookID, Status: books.StatusClaimedReturned})
		case books.LostCopyReturned:
			events = append(events, titles.CopyShelved{BookID: bookID})
		}
	}
	return titles.Part(titleID, version, events), nil
}

// HoldCopy puts a member in the title's queue for one copy alone.
func (s Shelves) HoldCopy(ctx context.Context, titleID, bookID, memberID string, o aggregate.Origin) (aggregate.Result, error) {
	return s.Titles.PlaceHold(ctx, titleID, titles.PlaceHold{MemberID: memberID, BookID: bookID}, o)
}

// LeaveQueue takes a member out of the title's queue.
func (s Shelves) LeaveQueue(ctx context.Context, titleID, memberID string, o aggregate.Origin) (aggregate.Result, error) {
	return s.Titles.CancelHold(ctx, titleID, titles.CancelHold{MemberID: memberID}, o)
}

// Adopting is the title's part of a book's adoption, decided on the title at version; should
// the title have moved on since, it is decided on what it is now and written at version all the
// same, so that the append is refused and the adoption decided again.
func (s Shelves) Adopting(ctx context.Context, titleID string, version int64, a books.Adoption) (aggregate.Also, error) {
	t, _, err := s.Titles.ReadQueue(ctx, titleID)
	if err != nil {
		return aggregate.Also{}, err
	}
	c := titles.AdoptCopy{BookID: a.BookID, Barcode: a.Barcode, Title: a.Title, Author: a.Author, LentTo: a.LentTo, Waiting: a.Waiting}
	if a.Held != nil {
		c.HeldFor, c.Until = a.Held.MemberID, a.Held.Until
	}
	events, err := c.Decide(t, titleID, s.Titles.Now())
	if err != nil {
		return aggregate.Also{}, err
	}
	return titles.Part(titleID, version, events), nil
}
