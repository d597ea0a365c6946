package holds

import (
	"cmp"
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
	// titles are every book's title, by book id; a hold shows its book's.
	titles map[string]string
	// books are the holds of each book that has any, in Seq order: its holder, then its queue.
	books map[string][]Hold
	// ids are the keys of books in order, and shelf the keys of the ready holds in the shelf's
	// order, so that a page is found without sorting.
	ids      []string
	shelf    []Key
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
		return &memoryBuild{checkpoints: checkpoints, name: b.Name(), titles: map[string]string{}, books: map[string][]Hold{}}
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
		for _, h := range slices.Clone(m.books[c.BookID]) {
			m.end(c.BookID, h.MemberID)
		}
	case Renamed:
		m.titles[c.BookID] = c.Title
	case Placed:
		m.end(c.Hold.BookID, c.Hold.MemberID)
		m.place(c.Hold)
	case Held:
		holds := m.books[c.BookID]
		if i := indexOf(holds, c.MemberID); i >= 0 && holds[i].Status() == Waiting {
			holds[i].Until = c.Until
			k := holds[i].key(true)
			j, _ := slices.BinarySearchFunc(m.shelf, k, compareShelf)
			m.shelf = slices.Insert(m.shelf, j, k)
		}
	case Ended:
		m.end(c.BookID, c.MemberID)
	case Erased:
		for _, bookID := range slices.Clone(m.ids) {
			m.end(bookID, c.MemberID)
		}
	}
}

// place adds a waiting hold; its member has none on its book.
func (m *memoryBuild) place(h Hold) {
	holds, known := m.books[h.BookID]
	if !known {
		i, _ := slices.BinarySearch(m.ids, h.BookID)
		m.ids = slices.Insert(m.ids, i, h.BookID)
	}
	i, _ := slices.BinarySearchFunc(holds, h.Seq, func(x Hold, seq int64) int { return cmp.Compare(x.Seq, seq) })
	m.books[h.BookID] = slices.Insert(holds, i, h)
}

// end ends the member's hold on the book, if they have one.
func (m *memoryBuild) end(bookID, memberID string) {
	holds := m.books[bookID]
	i := indexOf(holds, memberID)
	if i < 0 {
		return
	}
	if holds[i].Status() == Ready {
		if j, found := slices.BinarySearchFunc(m.shelf, holds[i].key(true), compareShelf); found {
			m.shelf = slices.Delete(m.shelf, j, j+1)
		}
	}
	holds = slices.Delete(holds, i, i+1)
	if len(holds) > 0 {
		m.books[bookID] = holds
		return
	}
	delete(m.books, bookID)
	if j, found := slices.BinarySearch(m.ids, bookID); found {
		m.ids = slices.Delete(m.ids, j, j+1)
	}
}

// indexOf is the index of the member's hold among holds, -1 when they have none.
func indexOf(holds []Hold, memberID string) int {
	return slices.IndexFunc(holds, func(h Hold) bool { return h.MemberID == memberID })
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
	page := Page{Holds: []Hold{}, Shelf: f.Shelf()}
	// add puts a hold the filter keeps on the page; false once the page is full.
	add := func(h Hold) bool {
		if !f.Matches(h) {
			return true
		}
		if len(page.Holds) == f.PageSize() {
			page.More = true
			return false
		}
		h.Title = m.titles[h.BookID]
		page.Holds = append(page.Holds, h)
		return true
	}
	if f.Shelf() {
		m.listShelf(f.After, add)
	} else {
		m.listQueues(f.After, add)
	}
	return page, m.position, nil
}

// listShelf hands the ready holds after the key to add, in the shelf's order, until it says
// stop.
func (m *memoryBuild) listShelf(after *Key, add func(Hold) bool) {
	start := 0
	if after != nil {
		i, found := slices.BinarySearchFunc(m.shelf, *after, compareShelf)
		if found {
			i++
		}
		start = i
	}
	for _, k := range m.shelf[start:] {
		holds := m.books[k.BookID]
		i := slices.IndexFunc(holds, func(h Hold) bool { return h.Seq == k.Seq })
		if !add(holds[i]) {
			return
		}
	}
}

// listQueues hands every hold after the key to add, with its place, in the queues' order,
// until it says stop.
func (m *memoryBuild) listQueues(after *Key, add func(Hold) bool) {
	start := 0
	if after != nil {
		start, _ = slices.BinarySearch(m.ids, after.BookID)
	}
	for _, bookID := range m.ids[start:] {
		place := 0
		for _, h := range m.books[bookID] {
			if h.Status() == Waiting {
				place++
				h.Place = place
			}
			if after != nil && compareQueue(h.key(false), *after) <= 0 {
				continue
			}
			if !add(h) {
				return
			}
		}
	}
}
