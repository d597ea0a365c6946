package cache

import (
	"container/list"
	"sync"

	"library/internal/aggregate"
)

// lru keeps the aggregates of recent commands in memory, folded to a version.
//
// An entry is a Loaded value that is never changed once stored: its state is cloned before
// anything is folded onto it. An entry may be behind the log (another process appended since),
// never ahead of it and never wrong about what it holds: every event in it was read from the
// log, or decided and then recorded by a successful append (the state after an append is the
// one its decisions built, not its events decoded and folded again). How a repository stays
// correct with entries that are behind is in the package comment.
//
// It is bounded by an estimate of the bytes it keeps (each entry's state, as its type
// weighs it, and its command window) and drops the least recently used entries first. A missing
// entry is rebuilt from the log.
type lru[S any] struct {
	limit int // bytes
	// weigh estimates an entry's bytes.
	weigh func(aggregate.Loaded[S]) int

	mu      sync.Mutex
	weight  int
	entries map[string]*list.Element // of *cached[S]
	recency list.List                // most recently used at the front
}

type cached[S any] struct {
	streamID string
	loaded   aggregate.Loaded[S]
	weight   int
}

func newLRU[S any](limit int, weighState func(S) int) *lru[S] {
	weigh := func(l aggregate.Loaded[S]) int { return entryBytes + weighState(l.State) + l.Commands.Bytes() }
	return &lru[S]{limit: limit, weigh: weigh, entries: make(map[string]*list.Element)}
}

// entryBytes is what an entry takes besides its state and window: the list element, the map
// slot and the stream id.
const entryBytes = 192

// bytes is the cache's estimate of what it holds.
func (c *lru[S]) bytes() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.weight
}

// get returns the entry for a stream, if there is one.
func (c *lru[S]) get(streamID string) (aggregate.Loaded[S], bool) {
	if c == nil {
		return aggregate.Loaded[S]{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[streamID]
	if !ok {
		return aggregate.Loaded[S]{}, false
	}
	c.recency.MoveToFront(el)
	return el.Value.(*cached[S]).loaded, true
}

// put stores loaded as the entry for a stream, unless the entry there is newer.
func (c *lru[S]) put(streamID string, loaded aggregate.Loaded[S]) {
	if c == nil || loaded.Version == 0 {
		return
	}
	weight := c.weigh(loaded) + len(streamID)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[streamID]; ok {
		entry := el.Value.(*cached[S])
		if entry.loaded.Version >= loaded.Version {
			return
		}
		c.weight += weight - entry.weight
		entry.loaded, entry.weight = loaded, weight
		c.recency.MoveToFront(el)
	} else {
		c.entries[streamID] = c.recency.PushFront(&cached[S]{streamID: streamID, loaded: loaded, weight: weight})
		c.weight += weight
	}
	for c.weight > c.limit && c.recency.Len() > 1 {
		c.remove(c.recency.Back())
	}
}

// drop forgets a stream, so that its next load reads all of it.
func (c *lru[S]) drop(streamID string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[streamID]; ok {
		c.remove(el)
	}
}

func (c *lru[S]) remove(el *list.Element) {
	entry := c.recency.Remove(el).(*cached[S])
	delete(c.entries, entry.streamID)
	c.weight -= entry.weight
}
