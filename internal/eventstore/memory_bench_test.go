package eventstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"library/internal/eventstore"
	"library/internal/testkit/storetest"
)

// BenchmarkMemoryAppend appends one event at a time to distinct streams from many goroutines,
// as BenchmarkPostgresAppend (package pgstore) does on PostgreSQL.
func BenchmarkMemoryAppend(b *testing.B) {
	storetest.BenchAppend(b, eventstore.NewMemory(nil))
}

// The benchmarks below measure one command's view of the in-memory store: one goroutine, one
// stream.

// benchNewEvents is a batch of n events like those a command writes: small JSON data and the
// command's metadata.
func benchNewEvents(n int) []eventstore.NewEvent {
	out := make([]eventstore.NewEvent, n)
	for i := range out {
		out[i] = eventstore.NewEvent{
			Type: "PaymentReceived",
			Data: json.RawMessage(`{"amount":1500}`),
			Metadata: eventstore.Metadata{
				CommandID:     "KQ3Z7J2XW5RPM4TN6HBVYC8DFA",
				Command:       "pay",
				Fingerprint:   "sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f0",
				CorrelationID: "request-1",
			},
		}
	}
	return out
}

// BenchmarkMemoryAppendToStream measures Memory.Append of a batch of 1 and of 10 events to the
// end of one stream, at the version the caller expects: validation, the version check, and
// copying the events in and out. Every command that records something pays it once. The store
// is replaced, with the timer stopped, every 10000 appends so that memory stays small.
func BenchmarkMemoryAppendToStream(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			ctx := context.Background()
			batch := benchNewEvents(n)
			s := eventstore.NewMemory(nil)
			var version int64
			appends := 0
			b.ReportAllocs()
			for b.Loop() {
				if appends++; appends%10_000 == 0 {
					b.StopTimer()
					s, version = eventstore.NewMemory(nil), 0
					b.StartTimer()
				}
				recorded, err := s.Append(ctx, "account-m1", version, batch)
				if err != nil {
					b.Fatal(err)
				}
				version = recorded[len(recorded)-1].Version
			}
		})
	}
}

// BenchmarkMemoryReadStream measures Memory.ReadStream of a whole stream of 10, 100 and 1000
// events: the store's share of loading an aggregate, apart from decoding and folding (see the
// Load benchmarks of the aggregate, accounts and books packages).
func BenchmarkMemoryReadStream(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s := eventstore.NewMemory(nil)
			if _, err := s.Append(ctx, "account-m1", 0, benchNewEvents(n)); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				got, err := s.ReadStream(ctx, "account-m1", 0)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != n {
					b.Fatalf("read %d events, want %d", len(got), n)
				}
			}
		})
	}
}
