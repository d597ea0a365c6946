package drivertest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/processor"
)

// TestLeases is the contract that every processor.Leases meets, within one replica: newLeases
// returns leases that nobody holds yet, for one test. Whether leases taken by other replicas
// exclude each other is each driver's to test, since only it knows what a replica is.
func TestLeases(t *testing.T, newLeases func(t *testing.T) processor.Leases) {
	t.Run("a second Acquire waits for the release", func(t *testing.T) {
		t.Parallel()
		leases := newLeases(t)
		first, err := leases.Acquire(context.Background(), "emails")
		require.NoError(t, err)
		require.False(t, IsClosed(first.Lost()), "a held lease is not lost")

		// While it is held, an Acquire with a deadline waits it out: it does not get the lease.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		_, err = leases.Acquire(ctx, "emails")
		require.ErrorIs(t, err, context.DeadlineExceeded)

		got := make(chan processor.Lease, 1)
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
		require.True(t, IsClosed(first.Lost()), "Release closes Lost")
		first.Release() // releasing twice is harmless and releases nothing else

		var second processor.Lease
		select {
		case second = <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("the second Acquire did not get the released lease")
		}
		require.NotNil(t, second)
		require.False(t, IsClosed(second.Lost()), "the old lease's second Release must not touch the new holder")
		second.Release()
	})

	t.Run("Acquire ends with its context", func(t *testing.T) {
		t.Parallel()
		leases := newLeases(t)
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
	})

	t.Run("names are independent", func(t *testing.T) {
		t.Parallel()
		leases := newLeases(t)
		a, err := leases.Acquire(context.Background(), "a")
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b, err := leases.Acquire(ctx, "b")
		require.NoError(t, err, "another name is free while a is held")
		a.Release()
		require.False(t, IsClosed(b.Lost()), "releasing a does not touch b")
		b.Release()
	})
}

// IsClosed reports whether ch is closed.
func IsClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
