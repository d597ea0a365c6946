package memdriver

import (
	"context"
	"library/internal/processor"
	"slices"
	"sync"
)

// Tables keeps the tables of a view model's builds in the memory of one process, one T
// per build, for a view whose builds a Checkpoints keeps: the tables of a build that was
// dropped are let go.
type Tables[T any] struct {
	builds   *Checkpoints
	view     string
	versions processor.Versions
	empty    func(b processor.Build) T

	mu     sync.Mutex
	tables map[int]T // by build number
}

// NewTables keeps the tables of view, whose code has versions; empty makes a build's
// tables.
func NewTables[T any](builds *Checkpoints, view string, versions processor.Versions, empty func(b processor.Build) T) *Tables[T] {
	return &Tables[T]{builds: builds, view: view, versions: versions, empty: empty, tables: map[int]T{}}
}

// Versions are the view's.
func (m *Tables[T]) Versions() processor.Versions { return m.versions }

// Open returns the tables of build b, empty the first time; ErrBuildGone when b was dropped.
func (m *Tables[T]) Open(ctx context.Context, b processor.Build) (T, error) {
	var none T
	list, err := m.builds.ListBuilds(ctx, m.view)
	if err != nil {
		return none, err
	}
	if !slices.ContainsFunc(list, func(l processor.Build) bool { return l.Number == b.Number }) {
		return none, processor.ErrBuildGone
	}
	return m.tablesOf(list, b), nil
}

// Reading returns the tables that reads go to: those of the build ReadBuild chooses, starting
// the view's first build when it has none. It is an errs.Unavailable error while no build it
// reads has caught up.
func (m *Tables[T]) Reading(ctx context.Context) (T, error) {
	var none T
	list, err := m.builds.ListBuilds(ctx, m.view)
	if err != nil {
		return none, err
	}
	if len(list) == 0 {
		// The view's first build, which answers at once, as the keeper starts it: read before
		// the keeper's first look, the view is empty, not unavailable.
		if _, _, err := m.builds.StartBuild(ctx, m.view, m.versions.Code, false); err != nil {
			return none, err
		}
		if list, err = m.builds.ListBuilds(ctx, m.view); err != nil {
			return none, err
		}
	}
	read, ok := processor.ReadBuild(list, m.versions)
	if !ok {
		return none, processor.NoBuildToRead(m.view)
	}
	return m.tablesOf(list, read), nil
}

// tablesOf returns b's tables, made empty when there are none yet, and lets go of the tables of
// the builds no longer listed.
func (m *Tables[T]) tablesOf(list []processor.Build, b processor.Build) T {
	m.mu.Lock()
	defer m.mu.Unlock()
	for number := range m.tables {
		if !slices.ContainsFunc(list, func(l processor.Build) bool { return l.Number == number }) {
			delete(m.tables, number)
		}
	}
	t, ok := m.tables[b.Number]
	if !ok {
		t = m.empty(b)
		m.tables[b.Number] = t
	}
	return t
}
