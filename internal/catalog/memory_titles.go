package catalog

import (
	"context"
	"slices"

	"library/internal/processor"
	"library/internal/titles"
)

// memoryTitles are the titles of one build of the catalog in memory: what catalog_titles holds
// in PostgreSQL. The build's lock guards them.
type memoryTitles struct {
	byID map[string]memoryTitle
	// keys are the places of the titles in order, so that a page is found without sorting.
	keys []TitleKey
}

// memoryTitle is a title as the aggregate folds it, as GET /titles lists it, and the text a
// search looks in.
type memoryTitle struct {
	state  titles.Title
	title  Title
	search string
}

func newMemoryTitles() memoryTitles { return memoryTitles{byID: map[string]memoryTitle{}} }

// apply makes one change: the title's events folded by the aggregate's Apply, its place in the
// order moved when its title changed.
func (m *memoryTitles) apply(c TitleChange) {
	e, known := m.byID[c.TitleID]
	listed := known && e.state.Added
	before := KeyOf(e.title)
	e.state = titles.Apply(e.state, c.Event)
	if !e.state.Added {
		m.byID[c.TitleID] = e // no title until its TitleAdded, as the aggregate has it
		return
	}
	e.title = TitleOf(e.state)
	e.title.ID = c.TitleID // a title's id is its stream's
	e.search = TitleSearchText(e.title.Title, e.title.Authors, e.title.Subjects)
	m.byID[c.TitleID] = e
	after := KeyOf(e.title)
	if listed && after == before {
		return
	}
	if listed {
		if i, found := m.find(before); found {
			m.keys = slices.Delete(m.keys, i, i+1)
		}
	}
	i, _ := m.find(after)
	m.keys = slices.Insert(m.keys, i, after)
}

// find is where k is in keys, or would be.
func (m *memoryTitles) find(k TitleKey) (int, bool) {
	return slices.BinarySearchFunc(m.keys, k, func(a, b TitleKey) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
}

// page is the page of titles that f chooses.
func (m *memoryTitles) page(f TitleFilter) TitlePage {
	start, found := m.find(f.After)
	if found {
		start++
	}
	page := TitlePage{Titles: []Title{}}
	for _, k := range m.keys[start:] {
		e := m.byID[k.ID]
		if !f.Matches(e.title, e.search) {
			continue
		}
		if len(page.Titles) == f.PageSize() {
			page.More = true
			break
		}
		page.Titles = append(page.Titles, e.title)
	}
	return page
}

// Titles implements Catalog.
func (m *Memory) Titles(ctx context.Context, f TitleFilter) (TitlePage, processor.Position, error) {
	build, err := m.builds.Reading(ctx)
	if err != nil {
		return TitlePage{}, processor.Position{}, err
	}
	return build.Titles(ctx, f)
}

// Titles lists the build's titles.
func (m *memoryBuild) Titles(ctx context.Context, f TitleFilter) (TitlePage, processor.Position, error) {
	if err := ctx.Err(); err != nil {
		return TitlePage{}, processor.Position{}, err
	}
	if err := f.Check(); err != nil {
		return TitlePage{}, processor.Position{}, err
	}
	if m.version < TitlesFrom {
		return TitlePage{}, processor.Position{}, TitlesNotBuilt()
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.titles.page(f), m.position, nil
}
