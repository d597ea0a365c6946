package catalog

import (
	"fmt"
	"sync"
)

// waitShare divides a WaitLimit's places: one client may hold 1/waitShare of them (an eighth),
// one at least.
const waitShare = 8

// WaitLimit bounds how many reads wait for minPosition at once, on one replica, so that
// waiting reads can't pile up: one more is answered NotCaughtUp at once instead of waiting.
// Each client (Query.List's client) may hold at most its share of the places (waitShare), so
// that one client's reads can't take them all and turn everyone else's away. A read whose
// position the catalog has reached already does not wait, and takes no place.
type WaitLimit struct {
	places, share int

	mu       sync.Mutex
	waiting  int
	byClient map[string]int // the places each client holds; a client holding none is not in it
}

// NewWaitLimit lets at most n reads wait at once, and at most max(1, n/waitShare) of one
// client's; nil (no bound) when n is 0 or less.
func NewWaitLimit(n int) *WaitLimit {
	if n <= 0 {
		return nil
	}
	return &WaitLimit{places: n, share: max(1, n/waitShare), byClient: map[string]int{}}
}

// Waiting is how many reads wait now.
func (l *WaitLimit) Waiting() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting
}

// take takes a place for client; it says why not, or "" once taken.
func (l *WaitLimit) take(client string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.waiting >= l.places:
		return "as many reads as this replica lets wait are waiting already"
	case l.byClient[client] >= l.share:
		return fmt.Sprintf("you have as many reads waiting on this replica as one client may (%d)", l.share)
	}
	l.waiting++
	l.byClient[client]++
	return ""
}

func (l *WaitLimit) release(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waiting--
	if l.byClient[client]--; l.byClient[client] <= 0 {
		delete(l.byClient, client)
	}
}

// waitPlace is one read's place among the waiting: taken before its first wait, given back
// when the read ends.
type waitPlace struct {
	limit  *WaitLimit
	client string
	held   bool
}

// take takes a place, unless one is held already; it says why not, or "" when the read may
// wait.
func (p *waitPlace) take() string {
	if p.limit == nil || p.held {
		return ""
	}
	refused := p.limit.take(p.client)
	p.held = refused == ""
	return refused
}

func (p *waitPlace) release() {
	if p.held {
		p.limit.release(p.client)
		p.held = false
	}
}
