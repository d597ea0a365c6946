package eventstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/testkit/pgtest"
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

// BenchmarkPostgresReadAll reads a batch of 100 events with command metadata, as a processor
// does: every processor reads every event, so this is paid once per processor per event.
func BenchmarkPostgresReadAll(b *testing.B) {
	pool, err := pgxpool.New(context.Background(), pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	s := NewPostgres(pool, discardLogger())
	defer s.Close()
	ctx := context.Background()
	for i := range 100 {
		meta := Metadata{CommandID: fmt.Sprintf("key-%d", i), Command: "pay", Fingerprint: "sha256:00112233445566778899aabbccddeeff", CorrelationID: "01JXYZREQUESTID"}
		if _, err := s.Append(ctx, fmt.Sprintf("account-%d", i), 0, []NewEvent{{Type: "PaymentReceived", Data: []byte(`{"amount":100}`), Metadata: meta}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		read, err := s.ReadAll(ctx, Checkpoint{}, 100)
		if err != nil || len(read) != 100 || read[99].Metadata.Command != "pay" {
			b.Fatalf("read %d events: %v", len(read), err)
		}
	}
}
