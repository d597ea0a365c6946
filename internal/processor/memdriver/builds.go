package memdriver

import (
	"context"
	"library/internal/processor"
	"time"
)

// The times of builds and readers in memory are the machine's, not Checkpoints' clock
// (the service's, which a test may hold still): they measure how long a build has been retired
// and a reader silent, as PostgreSQL's now() does.

// memoryBuild is a build as Checkpoints keeps it.
type memoryBuild struct {
	processor.Build
	retiredAt time.Time
}

// memoryReader is what a reader last said it reads of a view.
type memoryReader struct {
	number int
	seenAt time.Time
}

var _ processor.Builds = (*Checkpoints)(nil)

// ListBuilds implements processor.Builds.
func (m *Checkpoints) ListBuilds(ctx context.Context, view string) ([]processor.Build, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]processor.Build, 0, len(m.builds[view]))
	for _, b := range m.builds[view] {
		out = append(out, b.Build)
	}
	return out, nil
}

// StartBuild implements processor.Builds.
func (m *Checkpoints) StartBuild(ctx context.Context, view string, version int, again bool) (processor.Build, bool, error) {
	if err := ctx.Err(); err != nil {
		return processor.Build{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	caughtUp := false
	for _, b := range m.builds[view] {
		switch {
		case b.State == processor.BuildBuilding && b.Version >= version:
			return b.Build, false, nil
		case b.State == processor.BuildBuilding:
			m.dropBuild(b.Build) // a newer release's build replaces it
		case b.Version == version && !again:
			return processor.Build{}, false, nil
		default:
			caughtUp = true
		}
	}
	m.numbers[view]++
	b := processor.Build{View: view, Number: m.numbers[view], Version: version, State: processor.BuildBuilding}
	if !caughtUp {
		b.State = processor.BuildAnswering
	}
	m.builds[view] = append(m.builds[view], memoryBuild{Build: b})
	return b, true, nil
}

// TakeOver implements processor.Builds.
func (m *Checkpoints) TakeOver(ctx context.Context, b processor.Build) (processor.Build, error) {
	if err := ctx.Err(); err != nil {
		return processor.Build{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	mine, answering := -1, -1
	for i, other := range m.builds[b.View] {
		switch {
		case other.Number == b.Number:
			mine = i
		case other.State == processor.BuildAnswering:
			answering = i
		}
	}
	if mine < 0 {
		return processor.Build{}, processor.ErrBuildGone
	}
	list := m.builds[b.View]
	cur := &list[mine]
	if cur.State == processor.BuildAnswering {
		return cur.Build, nil
	}
	if answering >= 0 {
		old := &list[answering]
		if processor.Outranks(old.Build, cur.Build) {
			if cur.State == processor.BuildBuilding {
				cur.State, cur.retiredAt = processor.BuildRetired, time.Now()
			}
			return cur.Build, nil
		}
		if m.positions[cur.Name()].Checkpoint.Before(m.positions[old.Name()].Checkpoint) {
			return cur.Build, nil // not before its reads are as far on as the answering build's
		}
		old.State, old.retiredAt = processor.BuildRetired, time.Now()
	}
	cur.State = processor.BuildAnswering
	return cur.Build, nil
}

// DropBuilds implements processor.Builds.
func (m *Checkpoints) DropBuilds(ctx context.Context, view string, keep time.Duration) ([]processor.Build, error) {
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
	var dropped []processor.Build
	for _, b := range m.builds[view] {
		if b.State == processor.BuildRetired && now.Sub(b.retiredAt) >= keep && !read[b.Number] {
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
func (m *Checkpoints) dropBuild(b processor.Build) {
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

// Reading implements processor.Builds.
func (m *Checkpoints) Reading(ctx context.Context, reader, view string, number int) error {
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
