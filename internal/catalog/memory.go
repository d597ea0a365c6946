package catalog

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
)

// Memory is the catalog kept in the memory of one process: the tables of each of its builds
// (its books, and from TitlesFrom its titles), each build's checkpoint moved with them.
type Memory struct {
	builds *memdriver.Tables[*memoryBuild]
}

// memoryBuild is one build of the catalog in memory.
type memoryBuild struct {
	checkpoints *memdriver.Checkpoints
	name        string // the build's processor name: its checkpoint's
	version     int    // the version of the code that builds it: from TitlesFrom, it keeps titles

	mu    sync.RWMutex
	books map[string]memoryEntry
	// ids are the keys of books in order, so that a page is found without sorting.
	ids      []string
	titles   memoryTitles
	position processor.Position
}

// memoryEntry is a book with the text a search looks in and whom it is held for: what the
// catalog_books table's search_text and held_by columns hold.
type memoryEntry struct {
	book   Book
	search string
	// holder is the holderTag of the member the book is on the hold shelf for, "" for nobody.
	holder string
	// missing is "lost" or "claimedReturned" while the copy is on no shelf (from MissingFrom).
	missing string
}

var _ Catalog = (*Memory)(nil)

// NewMemory returns a catalog of this code's version whose builds, and their checkpoints, are
// kept in checkpoints.
func NewMemory(checkpoints *memdriver.Checkpoints) *Memory {
	return NewMemoryAt(checkpoints, Versions(0))
}

// NewMemoryAt is NewMemory for other versions of the catalog's code (tests).
func NewMemoryAt(checkpoints *memdriver.Checkpoints, versions processor.Versions) *Memory {
	return &Memory{builds: memdriver.NewTables(checkpoints, Name, versions, func(b processor.Build) *memoryBuild {
		return &memoryBuild{checkpoints: checkpoints, name: b.Name(), version: b.Version, books: map[string]memoryEntry{},
			titles: newMemoryTitles()}
	})}
}

// Versions implements processor.View.
func (m *Memory) Versions() processor.Versions { return m.builds.Versions() }

// Build implements processor.View.
func (m *Memory) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	build, err := m.builds.Open(ctx, b)
	if err != nil {
		return nil, err
	}
	return build, nil
}

// List implements Catalog.
func (m *Memory) List(ctx context.Context, f Filter) (Page, processor.Position, error) {
	build, err := m.builds.Reading(ctx)
	if err != nil {
		return Page{}, processor.Position{}, err
	}
	return build.List(ctx, f)
}

// Position implements Catalog.
func (m *Memory) Position(ctx context.Context) (processor.Position, error) {
	build, err := m.builds.Reading(ctx)
	if err != nil {
		return processor.Position{}, err
	}
	return build.Position(ctx)
}

// Apply implements processor.ViewModel.
func (m *memoryBuild) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	changes, err := Changes(events)
	if err != nil {
		return err
	}
	var titleChanges []TitleChange
	if m.version >= TitlesFrom {
		if titleChanges, err = TitleChanges(events); err != nil {
			return err
		}
	}
	return m.checkpoints.SaveWith(ctx, m.name, from, to, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, c := range changes {
			m.apply(c)
		}
		for _, c := range titleChanges {
			m.titles.apply(c)
		}
		m.position = to
	})
}

// apply makes one change; the caller holds mu.
func (m *memoryBuild) apply(c Change) {
	e, known := m.books[c.BookID]
	if !known {
		i, _ := slices.BinarySearch(m.ids, c.BookID)
		m.ids = slices.Insert(m.ids, i, c.BookID)
	}
	e = e.applied(c, m.version >= MissingFrom)
	e.search = FoldCase(e.book.Title + searchSeparator + e.book.Author)
	m.books[c.BookID] = e
}

// searchSeparator joins title and author in the text a search looks in. No search word holds
// it, so no word matches across it.
const searchSeparator = "\x1f"

// List lists the build's books.
func (m *memoryBuild) List(ctx context.Context, f Filter) (Page, processor.Position, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, processor.Position{}, err
	}
	if err := f.Check(); err != nil {
		return Page{}, processor.Position{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	// Ids compare byte by byte, as in PostgreSQL's "C" collation.
	start, found := slices.BinarySearch(m.ids, f.After)
	if found {
		start++
	}
	page := Page{Books: []Book{}}
	for _, id := range m.ids[start:] {
		e := m.books[id]
		if !e.matches(f) {
			continue
		}
		if len(page.Books) == f.PageSize() {
			page.More = true
			break
		}
		page.Books = append(page.Books, e.book)
	}
	return page, m.position, nil
}

// matches reports whether the entry is a book that has the filter's status and words.
func (e memoryEntry) matches(f Filter) bool {
	if e.book.ID == "" || (f.Status != "" && e.book.Status != f.Status) {
		return false // an entry with no BookAdded yet is no book
	}
	for _, w := range f.Words {
		if !strings.Contains(e.search, w) {
			return false
		}
	}
	return true
}

// Position is how far the build has read the log.
func (m *memoryBuild) Position(ctx context.Context) (processor.Position, error) {
	if err := ctx.Err(); err != nil {
		return processor.Position{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.position, nil
}

// applied returns a catalog entry after one change; with missing, the build keeps copies on no
// shelf (MissingFrom).
func (e memoryEntry) applied(c Change, missing bool) memoryEntry {
	b := e.book
	b.Version = c.Version
	switch ev := c.Event.(type) {
	case books.BookAdded:
		b = Book{ID: c.BookID, Title: ev.Title, Author: ev.Author, Version: c.Version}
		e.holder, e.missing = "", ""
	case books.BookLent:
		b.Loan = &books.Loan{LoanID: ev.LoanID, MemberID: ev.MemberID, LentAt: ev.LentAt, DueAt: ev.DueAt}
	case books.LoanRenewed:
		b.Loan = dueAt(b.Loan, ev.LoanID, ev.DueAt)
	case books.DueDateMoved:
		b.Loan = dueAt(b.Loan, ev.LoanID, ev.DueAt)
	case books.BookReturned:
		b.Loan = nil
	case books.BookHeld:
		e.holder = HolderTag(c.BookID, ev.MemberID)
	case books.HoldCancelled:
		if e.holder == HolderTag(c.BookID, ev.MemberID) {
			e.holder = "" // the holder gave the book up; a waiting member's cancel leaves it held
		}
	case books.HoldExpired, books.HoldFulfilled:
		e.holder = ""
	case books.LoanLost, books.ClaimedReturned, books.LostCopyReturned:
		if missing {
			b.Loan, e.missing = nil, MissingOf(ev)
		}
	}
	b.Status = StatusOf(b.Loan != nil, e.holder != "")
	if e.missing != "" {
		b.Status = e.missing
	}
	e.book = b
	return e
}

// MissingOf is what an event of a copy on no shelf makes of it: "lost", "claimedReturned", or
// "" for one back on a shelf.
func MissingOf(e books.Event) string {
	switch e.(type) {
	case books.LoanLost:
		return books.StatusLost
	case books.ClaimedReturned:
		return books.StatusClaimedReturned
	}
	return ""
}

// StatusOf is a book's status: lent while on loan, held while on the hold shelf, available
// otherwise (a copy on no shelf has the status it is missing with).
func StatusOf(lent, held bool) string {
	switch {
	case lent:
		return "lent"
	case held:
		return "held"
	}
	return "available"
}

// dueAt is the loan l due at due instead, when it is loanID; l as it is otherwise. The entry
// before the change may still be read, so the loan is copied, never changed.
func dueAt(l *books.Loan, loanID string, due time.Time) *books.Loan {
	if l == nil || l.LoanID != loanID {
		return l
	}
	moved := *l
	moved.DueAt = due
	return &moved
}
