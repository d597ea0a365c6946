package pgstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/eventstore"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/storetest"
)

// BenchmarkPostgresAppend appends one event at a time to distinct streams from many goroutines:
// what commands on different streams cost together. Appends to different streams must not
// queue behind each other. Run it against a durable server to see commit costs:
//
//	TEST_DATABASE_URL=postgres://... go test -run '^$' -bench PostgresAppend ./internal/eventstore/pgstore/
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
	s := New(pool, discardLogger())
	defer s.Close()

	storetest.BenchAppend(b, s)
}

// BenchmarkPostgresReadAll reads a batch of 100 events with command metadata, as a processor
// does: every processor reads every event, so this is paid once per processor per event.
func BenchmarkPostgresReadAll(b *testing.B) {
	pool, err := pgxpool.New(context.Background(), pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	s := New(pool, discardLogger())
	defer s.Close()
	ctx := context.Background()
	for i := range 100 {
		meta := eventstore.Metadata{CommandID: fmt.Sprintf("key-%d", i), Command: "pay", Fingerprint: "sha256:00112233445566778899aabbccddeeff", CorrelationID: "01JXYZREQUESTID"}
		if _, err := s.Append(ctx, fmt.Sprintf("account-%d", i), 0, []eventstore.NewEvent{{Type: "PaymentReceived", Data: []byte(`{"amount":100}`), Metadata: meta}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		read, err := s.ReadAll(ctx, eventstore.Checkpoint{}, 100)
		if err != nil || len(read) != 100 || read[99].Metadata.Command != "pay" {
			b.Fatalf("read %d events: %v", len(read), err)
		}
	}
}
