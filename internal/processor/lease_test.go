package processor

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestMemoryLeasesSecondAcquireWaitsForRelease(t *testing.T) {
	t.Parallel()
	leases := NewMemoryLeases()
	first, err := leases.Acquire(context.Background(), "emails")
	require.NoError(t, err)
	require.False(t, isClosed(first.Lost()), "a held lease is not lost")

	// While it is held, an Acquire with a deadline waits it out: it does not get the lease.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = leases.Acquire(ctx, "emails")
	require.ErrorIs(t, err, context.DeadlineExceeded)

	got := make(chan Lease, 1)
	go func() {
		second, err := leases.Acquire(context.Background(), "emails")
		if err == nil {
			got <- second
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("the second Acquire returned while the first lease was held")
	default:
	}
	first.Release()
	require.True(t, isClosed(first.Lost()), "Release closes Lost")
	first.Release() // releasing twice is harmless and releases nothing else

	var second Lease
	select {
	case second = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the second Acquire did not get the released lease")
	}
	require.NotNil(t, second)
	require.False(t, isClosed(second.Lost()), "the old lease's second Release must not touch the new holder")
	second.Release()
}

func TestMemoryLeasesAcquireEndsWithItsContext(t *testing.T) {
	t.Parallel()
	leases := NewMemoryLeases()
	held, err := leases.Acquire(context.Background(), "emails")
	require.NoError(t, err)
	defer held.Release()

	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() {
		_, err := leases.Acquire(ctx, "emails")
		result <- err
	}()
	cancel()
	select {
	case err := <-result:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Acquire did not return when its context was cancelled")
	}
}

func TestMemoryLeasesNamesAreIndependent(t *testing.T) {
	t.Parallel()
	leases := NewMemoryLeases()
	a, err := leases.Acquire(context.Background(), "a")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := leases.Acquire(ctx, "b")
	require.NoError(t, err, "another name is free while a is held")
	a.Release()
	require.False(t, isClosed(b.Lost()), "releasing a does not touch b")
	b.Release()
}

// Many goroutines take and give back one lease: never are two holding it at once, and each
// gets its turn.
func TestMemoryLeasesContended(t *testing.T) {
	t.Parallel()
	leases := NewMemoryLeases()
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
