package titles

import "time"

// AdoptCopy asks a title to record a book added before books were copies of titles (the
// adoption saga, through the book's own command): the title's record, from the book's title and
// author, when it has none; the copy, and where it is (lent to LentTo, or held for HeldFor
// until Until); and the members waiting in the book's own queue, first in line first, whose
// holds become holds on the title.
type AdoptCopy struct {
	BookID  string
	Barcode string
	Title   string
	Author  string
	LentTo  string
	HeldFor string
	Until   time.Time
	Waiting []string
}

// Decide adopts the copy on t at now. The title's record is checked as POST /titles checks one
// (errs.InvalidRequest for a title or author no title may have). Each hold taken over is
// placed ahead of the holds placed on the title since (Adopted), behind those taken over
// before it; a member who waits for the title already, or has a copy of it held for them or on
// loan, keeps that one hold. A copy the title lists already records nothing.
func (c AdoptCopy) Decide(t Title, titleID string, now time.Time) ([]Event, error) {
	var events []Event
	if !t.Added {
		record, err := AddTitle{ID: titleID, Title: c.Title, Authors: []string{c.Author}}.Checked(now)
		if err != nil {
			return nil, err
		}
		added, err := record.Decide(t)
		if err != nil {
			return nil, err
		}
		events = append(events, added...)
	} else if t.HasCopy(c.BookID) {
		return nil, nil
	}
	events = append(events, CopyAdded{BookID: c.BookID, Barcode: c.Barcode})
	switch {
	case c.LentTo != "":
		events = append(events, CopyLent{BookID: c.BookID, MemberID: c.LentTo})
	case c.HeldFor != "":
		events = append(events, HoldTrapped{MemberID: c.HeldFor, BookID: c.BookID, Until: c.Until, Adopted: true})
	}
	after := t
	for _, e := range events {
		after = Apply(after, e)
	}
	for _, m := range c.Waiting {
		if after.mayWait(m) != nil {
			continue
		}
		placed := TitleHoldPlaced{TitleID: titleID, MemberID: m, PlacedAt: now.UTC(), Adopted: true}
		events, after = append(events, placed), Apply(after, placed)
	}
	return events, nil
}
