package processor

import (
	"context"
)

// Leases hands out the right to run a processor: at most one holder per name at a time.
type Leases interface {
	// Acquire blocks until this replica holds the lease called name, or ctx ends (then it
	// returns ctx's error). Failures to reach the lease's backing store are retried inside.
	Acquire(ctx context.Context, name string) (Lease, error)
}

// Lease is a held lease.
type Lease interface {
	// Lost is closed when the lease can no longer be trusted: the holder must stop at once.
	// It is also closed by Release.
	Lost() <-chan struct{}
	// Fresh reports whether the lease can still be trusted right now. Lost is closed by a
	// goroutine; Fresh is for the moment before an action, so that a holder that was paused
	// (a long GC, a stopped process) does not act on a lease that ran out meanwhile.
	Fresh() bool
	// Release gives the lease up so that a standby can take it at once.
	Release()
}
