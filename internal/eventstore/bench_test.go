package eventstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/pgtest"
)

// BenchmarkPostgresAppend appends one event at a time to distinct streams from many goroutines:
// what commands on different streams cost together. Appends to different streams must not
// queue behind each other. Run it against a durable server to see commit costs:
//
//	TEST_DATABASE_URL=postgres://... go test -run '^$' -bench PostgresAppend ./internal/eventstore/
func BenchmarkPostgresAppend(b *testing.B) {
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	s := NewPostgres(pool, discardLogger())
	defer s.Close()

	benchmarkAppend(b, s)
}

// BenchmarkMemoryAppend is the same on the in-memory store.
func BenchmarkMemoryAppend(b *testing.B) {
	benchmarkAppend(b, NewMemory(nil))
}

// benchmarkAppend appends one event to a new stream per operation, from 8 goroutines per CPU.
func benchmarkAppend(b *testing.B, s Store) {
	var streams atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := s.Append(ctx, fmt.Sprintf("s-%d", streams.Add(1)), 0, events("E")); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}
