package secrethash

import (
	"context"
	"runtime"

	"library/internal/errs"
)

// Gate bounds how many hashes are made or checked at once. Each one takes a core and Params'
// memory for tens of milliseconds; a burst of them at once (every kiosk of a branch logging in
// and showing its member when the doors open) would have each take as long as all of them
// together, and all run past their callers' deadlines at the same moment. Behind a gate they
// queue, each done at full speed, and a caller whose context ends while it waits gives up
// without having used any. One Gate is shared by everything in a process that hashes.
type Gate struct {
	slots chan struct{}
}

// NewGate returns a gate that lets n hashes run at once; n < 1 is the number of cores Go uses.
func NewGate(n int) *Gate {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	return &Gate{slots: make(chan struct{}, n)}
}

// Enter waits for a slot, and returns the function that gives it back; or, having taken none,
// an errs.Unavailable error (a busy moment, to try again after, not a fault) wrapping ctx's
// once ctx ends first. A nil Gate lets everyone in.
func (g *Gate) Enter(ctx context.Context) (leave func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-ctx.Done():
		return nil, errs.Wrap(errs.Unavailable, ctx.Err(), "too many secrets are being checked at once: try again in a moment")
	}
}
