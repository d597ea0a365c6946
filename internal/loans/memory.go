package loans

import (
	"context"
	"slices"
	"sync"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
)

// Memory is the view kept in the memory of one process: the tables of each of its builds,
// each build's checkpoint moved with them.
type Memory struct {
	builds *memdriver.Tables[*memoryBuild]
}

// memoryBuild is one build of the view in memory.
type memoryBuild struct {
	checkpoints *memdriver.Checkpoints
	name        string // the build's processor name: its checkpoint's

	mu sync.RWMutex
	// titles are every book's title, by book id; a loan takes its book's.
	titles map[string]string
	// current are the current loans, by book id (a book has at most one).
	current map[string]Loan
	// order are the keys of current in order, so that a page is found without sorting.
	order    []Key
	position processor.Position
}

var _ View = (*Memory)(nil)

// NewMemory returns a view of this code's version whose builds, and their checkpoints, are
// kept in checkpoints.
func NewMemory(checkpoints *memdriver.Checkpoints) *Memory {
	return NewMemoryAt(checkpoints, Versions(0))
}

// NewMemoryAt is NewMemory for other versions of the view's code (tests).
func NewMemoryAt(checkpoints *memdriver.Checkpoints, versions processor.Versions) *Memory {
	return &Memory{builds: memdriver.NewTables(checkpoints, Name, versions, func(b processor.Build) *memoryBuild {
		return &memoryBuild{checkpoints: checkpoints, name: b.Name(), titles: map[string]string{}, current: map[string]Loan{}}
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

// List implements View.
func (m *Memory) List(ctx context.Context, f Filter) (Page, processor.Position, error) {
	build, err := m.builds.Reading(ctx)
	if err != nil {
		return Page{}, processor.Position{}, err
	}
	return build.List(ctx, f)
}

// Apply implements processor.ViewModel.
func (m *memoryBuild) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	changes, err := Changes(events)
	if err != nil {
		return err
	}
	return m.checkpoints.SaveWith(ctx, m.name, from, to, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, c := range changes {
			m.apply(c)
		}
		m.position = to
	})
}

// apply makes one change; the caller holds mu.
func (m *memoryBuild) apply(c Change) {
	switch c := c.(type) {
	case Titled:
		m.titles[c.BookID] = c.Title
		m.end(c.BookID)
	case Lent:
		m.end(c.Loan.BookID)
		c.Loan.Title = m.titles[c.Loan.BookID]
		m.start(c.Loan)
	case Renewed:
		if l, ok := m.current[c.BookID]; ok && l.LoanID == c.LoanID {
			m.end(c.BookID)
			l.DueAt, l.Renewals, l.DueMoved = c.DueAt, l.Renewals+1, nil
			if c.RenewalsAllowed != nil {
				l.RenewalsAllowed = c.RenewalsAllowed
			}
			m.start(l)
		}
	case Moved:
		if l, ok := m.current[c.BookID]; ok && l.LoanID == c.LoanID {
			m.end(c.BookID)
			why := c.Why
			l.DueAt, l.DueMoved = c.DueAt, &why
			m.start(l)
		}
	case Returned:
		m.end(c.BookID)
	case Erased:
		for bookID, l := range m.current {
			if l.MemberID == c.MemberID {
				m.end(bookID)
			}
		}
	}
}

// start makes l a current loan; its book has none.
func (m *memoryBuild) start(l Loan) {
	m.current[l.BookID] = l
	i, _ := slices.BinarySearchFunc(m.order, l.key(), Key.Compare)
	m.order = slices.Insert(m.order, i, l.key())
}

// end ends the book's current loan, if it has one.
func (m *memoryBuild) end(bookID string) {
	l, ok := m.current[bookID]
	if !ok {
		return
	}
	delete(m.current, bookID)
	if i, found := slices.BinarySearchFunc(m.order, l.key(), Key.Compare); found {
		m.order = slices.Delete(m.order, i, i+1)
	}
}

// List lists the build's rows.
func (m *memoryBuild) List(ctx context.Context, f Filter) (Page, processor.Position, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, processor.Position{}, err
	}
	if err := f.Check(); err != nil {
		return Page{}, processor.Position{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	start := 0
	if f.After != nil {
		i, found := slices.BinarySearchFunc(m.order, *f.After, Key.Compare)
		if found {
			i++
		}
		start = i
	}
	page := Page{Loans: []Loan{}}
	for _, k := range m.order[start:] {
		if !f.DueBefore.IsZero() && !k.DueAt.Before(f.DueBefore) {
			break // the rest are due later still
		}
		l := m.current[k.BookID]
		if !f.Matches(l) {
			continue
		}
		if len(page.Loans) == f.PageSize() {
			page.More = true
			break
		}
		page.Loans = append(page.Loans, l)
	}
	return page, m.position, nil
}
