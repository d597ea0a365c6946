// Package titles is the library's bibliographic records: the Title aggregate (its events,
// commands and decisions, plain Go with no I/O), its snapshot codec, and the service that runs
// its commands through package aggregate. A title is what a library catalogues once (its title,
// authors, ISBN, year, publisher, language, subjects), with the copies on its shelves (each a
// book, package books) and the queue of members waiting for one. Its HTTP handlers are package
// titlesapi.
//
// It promises:
//
//   - every field is checked before anything is read (lengths, a year from MinYear to next
//     year, an ISO 639 language code, an ISBN with a right check digit) and kept in one form:
//     an ISBN as its 13 digits, a language as its shortest code (eng and en are en);
//   - a title is added once under its id (errs.TitleAlreadyExists); a change records only what
//     it changes (TitleChanged), and nothing when it changes nothing;
//   - an ISBN belongs to one title at a time: it is reserved (package reservations) in the
//     same append as the TitleAdded or TitleChanged that gives it to the title, so two titles
//     added at once with one ISBN, on any replicas, end with one of them added and the other
//     refused (errs.TitleAlreadyExists); a change of ISBN, or its removal, releases the old
//     value in that same append, for another title to take;
//   - a title lists its copies (CopyAdded), each once, in the order they were added: a copy's
//     CopyAdded is written in the append of the copy's own BookAdded (package books, through
//     Service.Shelve), so the title and its copies agree at every append; a title made for a
//     book added on its own, or adopted for a book added before titles (AdoptCopy), is added
//     in the same append as its first copy;
//   - members wait for the title in the order they asked (holds.go), and where each copy is
//     (on the shelf, lent, held for a member) is written on the title in the append of the
//     copy's own event, so a hold is refused while a copy is on the shelf (errs.TitleAvailable),
//     a copy that comes free is held for the first member whose hold it can fill, and no hold
//     is filled twice nor a copy held for two, whatever runs at once on whichever replica.
package titles

import (
	"slices"
	"time"
)

// Event is a Title event; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// TitleAdded records that a title joined the catalogue. The optional fields are left out when
// the title has none.
type TitleAdded struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	ISBN      string   `json:"isbn,omitempty"`
	Year      int      `json:"year,omitempty"`
	Publisher string   `json:"publisher,omitempty"`
	Language  string   `json:"language,omitempty"`
	Subjects  []string `json:"subjects,omitempty"`
	// ControlNumber is the title's identity in the catalogue it was imported from, if it was.
	ControlNumber string `json:"controlNumber,omitempty"`
}

// TitleChanged records what a change changed: the fields given are the title's new values,
// and Removed names the optional fields it no longer has. A field neither given nor removed
// is as it was.
type TitleChanged struct {
	Title     string   `json:"title,omitempty"`
	Authors   []string `json:"authors,omitempty"`
	ISBN      string   `json:"isbn,omitempty"`
	Year      int      `json:"year,omitempty"`
	Publisher string   `json:"publisher,omitempty"`
	Language  string   `json:"language,omitempty"`
	Subjects  []string `json:"subjects,omitempty"`
	// Removed lists, in the order of Optional, the optional fields the title no longer has.
	Removed []string `json:"removed,omitempty"`
}

// CopyAdded records that a copy of the title (the book BookID, with its Barcode, "" for none)
// joined the library: written in the same append as the copy's BookAdded, or, for a book added
// before books were copies of titles, by the adoption saga.
type CopyAdded struct {
	BookID  string `json:"bookId"`
	Barcode string `json:"barcode,omitempty"`
}

// EventType names the event in the log; never rename it.
func (TitleAdded) EventType() string { return "TitleAdded" }

// EventType names the event in the log; never rename it.
func (CopyAdded) EventType() string { return "CopyAdded" }

// EventType names the event in the log; never rename it.
func (TitleChanged) EventType() string { return "TitleChanged" }

// The optional fields of a title, by their names in events and requests, in the order
// TitleChanged.Removed lists them.
const (
	FieldISBN      = "isbn"
	FieldYear      = "year"
	FieldPublisher = "publisher"
	FieldLanguage  = "language"
	FieldSubjects  = "subjects"
)

// Optional are the names of the fields a title may be without.
func Optional() []string {
	return []string{FieldISBN, FieldYear, FieldPublisher, FieldLanguage, FieldSubjects}
}

// Title is the state of one title, folded from its events. The zero value of an optional
// field is its absence: a title with no ISBN has ISBN "", with no year Year 0.
type Title struct {
	Added     bool
	ID        string
	Title     string
	Authors   []string
	ISBN      string
	Year      int
	Publisher string
	Language  string
	Subjects  []string
	// ControlNumber is the title's identity in the catalogue it was imported from ("" for none).
	ControlNumber string
	// Copies are the title's copies, in the order they were added.
	Copies []Copy
	// Holds are the members waiting, first in line first (holds.go).
	Holds []Hold
}

// Copy is a copy of a title, as the title lists it: the book, its barcode ("" for none), and
// where it is: on the shelf, lent to MemberID, or held for MemberID until Until.
type Copy struct {
	BookID   string    `json:"bookId"`
	Barcode  string    `json:"barcode,omitempty"`
	State    string    `json:"state"`
	MemberID string    `json:"memberId,omitempty"`
	Until    time.Time `json:"until,omitzero"`
}

// HasCopy reports whether the title lists the book as one of its copies.
func (t Title) HasCopy(bookID string) bool {
	return slices.ContainsFunc(t.Copies, func(c Copy) bool { return c.BookID == bookID })
}

// Apply returns the state after e. Lists are copied from events, never shared with them, and
// never changed in place: a state's lists may be shared with the states it was folded from.
func Apply(t Title, e Event) Title {
	switch e := e.(type) {
	case TitleAdded:
		t = Title{Added: true, ID: e.ID, Title: e.Title, Authors: slices.Clone(e.Authors), ISBN: e.ISBN, Year: e.Year,
			Publisher: e.Publisher, Language: e.Language, Subjects: slices.Clone(e.Subjects), ControlNumber: e.ControlNumber}
	case TitleChanged:
		t = applyChange(t, e)
	case CopyAdded:
		t.Copies = append(slices.Clip(t.Copies), Copy{BookID: e.BookID, Barcode: e.Barcode, State: OnShelf})
	default:
		t, _ = applyHold(t, e)
	}
	return t
}

func applyChange(t Title, e TitleChanged) Title {
	if e.Title != "" {
		t.Title = e.Title
	}
	if e.Authors != nil {
		t.Authors = slices.Clone(e.Authors)
	}
	if e.ISBN != "" {
		t.ISBN = e.ISBN
	}
	if e.Year != 0 {
		t.Year = e.Year
	}
	if e.Publisher != "" {
		t.Publisher = e.Publisher
	}
	if e.Language != "" {
		t.Language = e.Language
	}
	if e.Subjects != nil {
		t.Subjects = slices.Clone(e.Subjects)
	}
	for _, field := range e.Removed {
		switch field {
		case FieldISBN:
			t.ISBN = ""
		case FieldYear:
			t.Year = 0
		case FieldPublisher:
			t.Publisher = ""
		case FieldLanguage:
			t.Language = ""
		case FieldSubjects:
			t.Subjects = nil
		}
	}
	return t
}
