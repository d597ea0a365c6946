package memdriver

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Many goroutines take and give back one lease: never are two holding it at once, and each
// gets its turn.
func TestLeasesContended(t *testing.T) {
	t.Parallel()
	leases := NewLeases()
	const workers, rounds = 20, 50
	var holders, most, total atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				lease, err := leases.Acquire(context.Background(), "contended")
				if err != nil {
					t.Error(err)
					return
				}
				n := holders.Add(1)
				raiseTo(&most, n)
				runtime.Gosched() // give another goroutine the chance to (wrongly) get in
				total.Add(1)
				holders.Add(-1)
				lease.Release()
			}
		})
	}
	wg.Wait()
	require.Equal(t, int64(1), most.Load(), "two goroutines held the lease at once")
	require.Equal(t, int64(workers*rounds), total.Load())
}

// raiseTo sets a to n if n is larger, however many goroutines do it at once.
func raiseTo(a *atomic.Int64, n int64) {
	for {
		m := a.Load()
		if n <= m || a.CompareAndSwap(m, n) {
			return
		}
	}
}
