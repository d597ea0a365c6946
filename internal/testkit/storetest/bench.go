package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"library/internal/eventstore"
)

// BenchAppend appends one event to a new stream per operation, from 8 goroutines per CPU:
// what commands on different streams cost together.
func BenchAppend(b *testing.B, s eventstore.Store) {
	var streams atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := s.Append(ctx, fmt.Sprintf("s-%d", streams.Add(1)), 0, Events("E")); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}
