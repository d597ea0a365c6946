package books

import (
	"context"
	"slices"
	"strings"
	"sync"

	"library/internal/eventstore"
	"library/internal/processor"
)

// MemoryCatalog is the catalog kept in the memory of one process, its checkpoint with it.
type MemoryCatalog struct {
	checkpoints *processor.MemoryCheckpoints

	mu       sync.RWMutex
	books    map[string]CatalogBook
	position processor.Position
}

var _ Catalog = (*MemoryCatalog)(nil)

// NewMemoryCatalog returns an empty catalog whose checkpoint is kept in checkpoints.
func NewMemoryCatalog(checkpoints *processor.MemoryCheckpoints) *MemoryCatalog {
	return &MemoryCatalog{checkpoints: checkpoints, books: map[string]CatalogBook{}}
}

// Apply implements processor.ViewModel.
func (m *MemoryCatalog) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	changes, err := catalogChanges(events)
	if err != nil {
		return err
	}
	return m.checkpoints.SaveWith(ctx, CatalogName, from, to, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, c := range changes {
			m.books[c.BookID] = applyToCatalog(m.books[c.BookID], c)
		}
		m.position = to
	})
}

// Reset implements processor.ViewModel.
func (m *MemoryCatalog) Reset(ctx context.Context, from processor.Position) error {
	to := processor.Position{Generation: from.Generation + 1}
	return m.checkpoints.SaveWith(ctx, CatalogName, from, to, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		clear(m.books)
		m.position = to
	})
}

// List implements Catalog.
func (m *MemoryCatalog) List(ctx context.Context, status string) ([]CatalogBook, processor.Position, error) {
	if err := ctx.Err(); err != nil {
		return nil, processor.Position{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := []CatalogBook{}
	for _, b := range m.books {
		if b.ID != "" && (status == "" || b.Status == status) {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b CatalogBook) int { return strings.Compare(a.ID, b.ID) })
	return out, m.position, nil
}

// Position implements Catalog.
func (m *MemoryCatalog) Position(ctx context.Context) (processor.Position, error) {
	if err := ctx.Err(); err != nil {
		return processor.Position{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.position, nil
}

// applyToCatalog returns a catalog entry after one change.
func applyToCatalog(b CatalogBook, c catalogChange) CatalogBook {
	b.Version = c.Version
	switch e := c.Event.(type) {
	case BookAdded:
		b = CatalogBook{ID: c.BookID, Title: e.Title, Author: e.Author, Status: "available", Version: c.Version}
	case BookLent:
		b.Status = "lent"
		b.Loan = &Loan{LoanID: e.LoanID, MemberID: e.MemberID, LentAt: e.LentAt, DueAt: e.DueAt}
	case BookReturned:
		b.Status, b.Loan = "available", nil
	}
	return b
}
