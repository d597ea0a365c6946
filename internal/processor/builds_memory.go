package processor

import (
	"context"
	"time"
)

// The times of builds and readers in memory are the machine's, not MemoryCheckpoints' clock
// (the service's, which a test may hold still): they measure how long a build has been retired
// and a reader silent, as PostgreSQL's now() does.

// memoryBuild is a build as MemoryCheckpoints keeps it.
type memoryBuild struct {
	Build
	retiredAt time.Time
}

// memoryReader is what a reader last said it reads of a view.
type memoryReader struct {
	number int
	seenAt time.Time
}

var _ Builds = (*MemoryCheckpoints)(nil)

// ListBuilds implements Builds.
func (m *MemoryCheckpoints) ListBuilds(ctx context.Context, view string) ([]Build, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Build, 0, len(m.builds[view]))
	for _, b := range m.builds[view] {
		out = append(out, b.Build)
	}
	return out, nil
}

// StartBuild implements Builds.
func (m *MemoryCheckpoints) StartBuild(ctx context.Context, view string, version int, again bool) (Build, bool, error) {
	if err := ctx.Err(); err != nil {
		return Build{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	caughtUp := false
	for _, b := range m.builds[view] {
		switch {
		case b.State == BuildBuilding && b.Version >= version:
			return b.Build, false, nil
		case b.State == BuildBuilding:
			m.dropBuild(b.Build) // a newer release's build replaces it
		case b.Version == version && !again:
			return Build{}, false, nil
		default:
			caughtUp = true
		}
	}
	m.numbers[view]++
	b := Build{View: view, Number: m.numbers[view], Version: version, State: BuildBuilding}
	if !caughtUp {
		b.State = BuildAnswering
	}
	m.builds[view] = append(m.builds[view], memoryBuild{Build: b})
	return b, true, nil
}

// TakeOver implements Builds.
func (m *MemoryCheckpoints) TakeOver(ctx context.Context, b Build) (Build, error) {
	if err := ctx.Err(); err != nil {
		return Build{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	mine, answering := -1, -1
	for i, other := range m.builds[b.View] {
		switch {
		case other.Number == b.Number:
			mine = i
		case other.State == BuildAnswering:
			answering = i
		}
	}
	if mine < 0 {
		return Build{}, ErrBuildGone
	}
	list := m.builds[b.View]
	cur := &list[mine]
	if cur.State == BuildAnswering {
		return cur.Build, nil
	}
	if answering >= 0 {
		old := &list[answering]
		if Outranks(old.Build, cur.Build) {
			if cur.State == BuildBuilding {
				cur.State, cur.retiredAt = BuildRetired, time.Now()
			}
			return cur.Build, nil
		}
		if m.positions[cur.Name()].Checkpoint.Before(m.positions[old.Name()].Checkpoint) {
			return cur.Build, nil // not before its reads are as far on as the answering build's
		}
		old.State, old.retiredAt = BuildRetired, time.Now()
	}
	cur.State = BuildAnswering
	return cur.Build, nil
}

// DropBuilds implements Builds.
func (m *MemoryCheckpoints) DropBuilds(ctx context.Context, view string, keep time.Duration) ([]Build, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	read := map[int]bool{}
	for reader, r := range m.readers[view] {
		if now.Sub(r.seenAt) >= keep {
			delete(m.readers[view], reader)
			continue
		}
		read[r.number] = true
	}
	var dropped []Build
	for _, b := range m.builds[view] {
		if b.State == BuildRetired && now.Sub(b.retiredAt) >= keep && !read[b.Number] {
			dropped = append(dropped, b.Build)
		}
	}
	for _, b := range dropped {
		m.dropBuild(b)
	}
	return dropped, nil
}

// dropBuild forgets a build: its row, its checkpoint and anything kept under its name. The
// caller holds m.mu.
func (m *MemoryCheckpoints) dropBuild(b Build) {
	list := m.builds[b.View]
	for i := range list {
		if list[i].Number == b.Number {
			m.builds[b.View] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	name := b.Name()
	delete(m.positions, name)
	delete(m.deferred, name)
	delete(m.parked, name)
	delete(m.timers, name)
	m.gone[name] = true
}

// Reading implements Builds.
func (m *MemoryCheckpoints) Reading(ctx context.Context, reader, view string, number int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if number == 0 {
		delete(m.readers[view], reader)
		return nil
	}
	if m.readers[view] == nil {
		m.readers[view] = map[string]memoryReader{}
	}
	m.readers[view][reader] = memoryReader{number: number, seenAt: time.Now()}
	return nil
}
