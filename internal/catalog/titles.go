package catalog

import (
	"fmt"
	"strings"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/titles"
)

// Titles in the catalog, from TitlesFrom: one row per title, as GET /titles lists it. A title's
// row is folded from its stream's events by the Title aggregate's own Apply (titles.Apply), so
// the catalog's counts of copies and holds are those of the aggregate, at the event the
// catalog has read: the copies the title lists, those on its shelf for anyone (not lent, not on
// the hold shelf), and the members in its queue. GET /titles/{titleId} counts the same things
// from the same events.

// Title is a title as GET /titles lists it. An optional field is its zero value when the title
// has none: ISBN "", Year 0.
type Title struct {
	ID        string
	Title     string
	Authors   []string
	ISBN      string
	Year      int
	Publisher string
	Language  string
	Subjects  []string
	Counts    Counts
}

// Counts are how many copies a title has, how many of them are on the shelf for anyone, and
// how many members wait in its queue.
type Counts struct {
	Total        int
	Available    int
	HoldsWaiting int
}

// TitleChange is what one event of a title's stream does to the catalog.
type TitleChange struct {
	TitleID string
	Event   titles.Event
}

// TitleChanges decodes the title events of a batch, as the Title aggregate decodes them. Events
// of other streams, and markers of commands that changed nothing, are skipped.
func TitleChanges(events []eventstore.Event) ([]TitleChange, error) {
	var out []TitleChange
	for _, e := range events {
		titleID, ok := titles.TitleID(e)
		if !ok {
			continue
		}
		event, err := titles.Decode(e)
		if err != nil {
			return nil, fmt.Errorf("catalog: event %s at position %d: %w", e.Type, e.Position, err)
		}
		if event != nil {
			out = append(out, TitleChange{TitleID: titleID, Event: event})
		}
	}
	return out, nil
}

// TitleOf is a title, folded by the Title aggregate, as GET /titles lists it.
func TitleOf(t titles.Title) Title {
	out := Title{ID: t.ID, Title: t.Title, Authors: t.Authors, ISBN: t.ISBN, Year: t.Year, Publisher: t.Publisher,
		Language: t.Language, Subjects: t.Subjects, Counts: CountsOf(t)}
	if len(out.Subjects) == 0 {
		out.Subjects = nil // none, however the events said it
	}
	return out
}

// CountsOf counts a title's copies, those on the shelf for anyone, and the members waiting.
func CountsOf(t titles.Title) Counts {
	return Counts{Total: len(t.Copies), Available: t.OnShelf(), HoldsWaiting: len(t.Holds)}
}

// SortTitle is what titles are ordered by: the title, folded by FoldCase, compared byte by
// byte (then the id, for titles with one title).
func SortTitle(title string) string { return FoldCase(title) }

// TitleSearchText is the text a search of titles looks in: the title, each author and each
// subject, folded by FoldCase, with searchSeparator between them, so that a word matches
// within one of them, never across two. The catalog keeps it as it keeps the search text of its
// books, folded the same way; in PostgreSQL it is written as this makes it, so that memory and
// PostgreSQL agree even on a server without ICU.
func TitleSearchText(title string, authors, subjects []string) string {
	parts := make([]string, 0, 1+len(authors)+len(subjects))
	parts = append(parts, title)
	parts = append(parts, authors...)
	parts = append(parts, subjects...)
	return FoldCase(strings.Join(parts, searchSeparator))
}

// TitlesNotBuilt is what a read of titles answers while the build of the catalog that answers
// is older than TitlesFrom: a release whose catalog keeps no titles answers, until this
// release's build, which does, has caught up and takes over.
func TitlesNotBuilt() error {
	return errs.E(errs.NotCaughtUp, "the catalog's titles are still being built (GET /status shows how far): "+
		"GET /titles answers once the new build of the catalog takes over; try again shortly")
}
