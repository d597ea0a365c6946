package holdcell

import (
	"context"
	"sync"
)

// indexes is 0 to n-1.
func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// each runs do on every item, parallel at a time, and returns the first error.
func each[T any](ctx context.Context, items []T, parallel int, do func(context.Context, T) error) error {
	work := make(chan T)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range parallel {
		wg.Go(func() {
			for it := range work {
				if err := do(ctx, it); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
	return first
}
