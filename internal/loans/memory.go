package loans

import (
	"context"
	"slices"
	"sync"

	"library/internal/eventstore"
	"library/internal/processor"
)

// Memory is the view kept in the memory of one process, its checkpoint with it.
type Memory struct {
	checkpoints *processor.MemoryCheckpoints

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

// NewMemory returns an empty view whose checkpoint is kept in checkpoints.
func NewMemory(checkpoints *processor.MemoryCheckpoints) *Memory {
	return &Memory{checkpoints: checkpoints, titles: map[string]string{}, current: map[string]Loan{}}
}

// Apply implements processor.ViewModel.
func (m *Memory) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	changes, err := Changes(events)
	if err != nil {
		return err
	}
	return m.checkpoints.SaveWith(ctx, Name, from, to, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, c := range changes {
			m.apply(c)
		}
		m.position = to
	})
}

// Reset implements processor.ViewModel.
func (m *Memory) Reset(ctx context.Context, from processor.Position) error {
	to := processor.Position{Generation: from.Generation + 1}
	return m.checkpoints.SaveWith(ctx, Name, from, to, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		clear(m.titles)
		clear(m.current)
		m.order = m.order[:0]
		m.position = to
	})
}

// apply makes one change; the caller holds mu.
func (m *Memory) apply(c Change) {
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
			l.DueAt, l.Renewals = c.DueAt, l.Renewals+1
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
func (m *Memory) start(l Loan) {
	m.current[l.BookID] = l
	i, _ := slices.BinarySearchFunc(m.order, l.key(), Key.Compare)
	m.order = slices.Insert(m.order, i, l.key())
}

// end ends the book's current loan, if it has one.
func (m *Memory) end(bookID string) {
	l, ok := m.current[bookID]
	if !ok {
		return
	}
	delete(m.current, bookID)
	if i, found := slices.BinarySearchFunc(m.order, l.key(), Key.Compare); found {
		m.order = slices.Delete(m.order, i, i+1)
	}
}

// List implements View.
func (m *Memory) List(ctx context.Context, f Filter) (Page, processor.Position, error) {
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
