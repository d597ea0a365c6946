package titles

import (
	"slices"
	"strings"
	"time"

	"library/internal/errs"
	"library/internal/validate"
)

// Every command has Checked, which checks its fields without looking at any state and returns
// the command in the form the title keeps (an ISBN as 13 digits, a language as its shortest
// code), and Decide, which takes the state and a checked command and returns the events to
// record (none when there is nothing to do) or the reason to refuse. The service checks before
// it loads anything, so bad input is refused even while the store is down, and one change
// written two ways is one payload for its Idempotency-Key.

// AddTitle asks to add a title to the catalogue. An optional field is nil, or empty for
// subjects, when the title has none.
type AddTitle struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	ISBN      *string  `json:"isbn,omitempty"`
	Year      *int     `json:"year,omitempty"`
	Publisher *string  `json:"publisher,omitempty"`
	Language  *string  `json:"language,omitempty"`
	Subjects  []string `json:"subjects,omitempty"`
	// ControlNumber is the title's identity in the catalogue it was imported from (MARC's
	// 003 and 001, "003:001"); "" for a title added here.
	ControlNumber string `json:"controlNumber,omitempty"`
}

// MaxControlNumberLength is the longest control number a title keeps, in characters.
const MaxControlNumberLength = 100

// Checked checks the fields, a year against now, and returns the command as the title keeps it.
func (c AddTitle) Checked(now time.Time) (AddTitle, error) {
	if err := validate.All(validate.ID("id", c.ID), checkTitle(c.Title), checkAuthors(c.Authors), checkSubjects(c.Subjects)); err != nil {
		return AddTitle{}, err
	}
	var err error
	if c.ISBN, c.Language, err = checkOptional(c.ISBN, c.Year, c.Publisher, c.Language, now); err != nil {
		return AddTitle{}, err
	}
	if len(c.Subjects) == 0 {
		c.Subjects = nil
	}
	if c.ControlNumber != "" {
		if err := validate.Text("controlNumber", c.ControlNumber, MaxControlNumberLength); err != nil {
			return AddTitle{}, err
		}
	}
	return c, nil
}

// Decide adds the title; a title is added once. That its ISBN is no other title's is the
// reservation's to decide, in the same append (Service.Add).
func (c AddTitle) Decide(t Title) ([]Event, error) {
	if t.Added {
		return nil, errs.E(errs.TitleAlreadyExists, "title %s already exists", c.ID)
	}
	return []Event{TitleAdded{ID: c.ID, Title: c.Title, Authors: c.Authors, ISBN: deref(c.ISBN), Year: deref(c.Year),
		Publisher: deref(c.Publisher), Language: deref(c.Language), Subjects: c.Subjects, ControlNumber: c.ControlNumber}}, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// ChangeTitle asks to change a title's record, as a JSON merge patch (RFC 7396) of it does: a
// field that is nil is left as it is, one that is set gets the new value, and Remove names the
// optional fields (Optional) to take away. Subjects set to an empty list are removed. A title
// always has a title and authors: neither can be removed.
type ChangeTitle struct {
	Title     *string  `json:"title,omitempty"`
	Authors   []string `json:"authors,omitempty"`
	ISBN      *string  `json:"isbn,omitempty"`
	Year      *int     `json:"year,omitempty"`
	Publisher *string  `json:"publisher,omitempty"`
	Language  *string  `json:"language,omitempty"`
	Subjects  []string `json:"subjects,omitempty"`
	Remove    []string `json:"remove,omitempty"`
}

// Checked checks the fields that are set, a year against now, and the fields to remove, and
// returns the change as the title keeps its values, with Remove in the order of Optional.
func (c ChangeTitle) Checked(now time.Time) (ChangeTitle, error) {
	if c.Subjects != nil && len(c.Subjects) == 0 {
		c.Subjects, c.Remove = nil, append(slices.Clip(c.Remove), FieldSubjects)
	}
	remove, err := c.checkRemove()
	if err != nil {
		return ChangeTitle{}, err
	}
	c.Remove = remove
	if err := c.checkSet(); err != nil {
		return ChangeTitle{}, err
	}
	if c.ISBN, c.Language, err = checkOptional(c.ISBN, c.Year, c.Publisher, c.Language, now); err != nil {
		return ChangeTitle{}, err
	}
	return c, nil
}

// checkSet checks the title, authors and subjects, when they are set.
func (c ChangeTitle) checkSet() error {
	var checks []error
	if c.Title != nil {
		checks = append(checks, checkTitle(*c.Title))
	}
	if c.Authors != nil {
		checks = append(checks, checkAuthors(c.Authors))
	}
	if c.Subjects != nil {
		checks = append(checks, checkSubjects(c.Subjects))
	}
	return validate.All(checks...)
}

// checkRemove refuses a field to remove that is not optional, or that is also set, and returns
// those to remove in the order of Optional, each once.
func (c ChangeTitle) checkRemove() ([]string, error) {
	set := map[string]bool{FieldISBN: c.ISBN != nil, FieldYear: c.Year != nil, FieldPublisher: c.Publisher != nil,
		FieldLanguage: c.Language != nil, FieldSubjects: c.Subjects != nil}
	for _, field := range c.Remove {
		switch {
		case field == "title" || field == "authors":
			return nil, errs.E(errs.InvalidRequest, "%s can't be removed: every title has one", field)
		case !slices.Contains(Optional(), field):
			return nil, errs.E(errs.InvalidRequest, "only %s can be removed from a title", strings.Join(Optional(), ", "))
		case set[field]:
			return nil, errs.E(errs.InvalidRequest, "%s can't be both set and removed", field)
		}
	}
	var remove []string
	for _, field := range Optional() {
		if slices.Contains(c.Remove, field) {
			remove = append(remove, field)
		}
	}
	return remove, nil
}

// Decide records what the change changes, as one TitleChanged, and nothing when it changes
// nothing. That a new ISBN is no other title's is the reservation's to decide, in the same
// append (Service.Change).
func (c ChangeTitle) Decide(t Title) ([]Event, error) {
	if !t.Added {
		return nil, errs.E(errs.NotFound, "there is no such title")
	}
	var e TitleChanged
	if c.Title != nil && *c.Title != t.Title {
		e.Title = *c.Title
	}
	if c.Authors != nil && !slices.Equal(c.Authors, t.Authors) {
		e.Authors = c.Authors
	}
	if c.ISBN != nil && *c.ISBN != t.ISBN {
		e.ISBN = *c.ISBN
	}
	if c.Year != nil && *c.Year != t.Year {
		e.Year = *c.Year
	}
	if c.Publisher != nil && *c.Publisher != t.Publisher {
		e.Publisher = *c.Publisher
	}
	if c.Language != nil && *c.Language != t.Language {
		e.Language = *c.Language
	}
	if c.Subjects != nil && !slices.Equal(c.Subjects, t.Subjects) {
		e.Subjects = c.Subjects
	}
	for _, field := range c.Remove {
		if has(t, field) {
			e.Removed = append(e.Removed, field)
		}
	}
	if e.changesNothing() {
		return nil, nil
	}
	return []Event{e}, nil
}

// has reports whether a title has a value for an optional field.
func has(t Title, field string) bool {
	switch field {
	case FieldISBN:
		return t.ISBN != ""
	case FieldYear:
		return t.Year != 0
	case FieldPublisher:
		return t.Publisher != ""
	case FieldLanguage:
		return t.Language != ""
	case FieldSubjects:
		return len(t.Subjects) > 0
	}
	return false
}

func (e TitleChanged) changesNothing() bool {
	return e.Title == "" && e.Authors == nil && e.ISBN == "" && e.Year == 0 && e.Publisher == "" && e.Language == "" &&
		e.Subjects == nil && len(e.Removed) == 0
}

// isbnAfter is the ISBN a title has after a change recorded as decided, and whether the change
// touches it.
func isbnAfter(decided []Event) (string, bool) {
	for _, e := range decided {
		if changed, ok := e.(TitleChanged); ok {
			if changed.ISBN != "" {
				return changed.ISBN, true
			}
			if slices.Contains(changed.Removed, FieldISBN) {
				return "", true
			}
		}
	}
	return "", false
}
