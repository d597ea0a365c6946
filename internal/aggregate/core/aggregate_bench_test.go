package core

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// The benchmarks of this file use their own small aggregate, a counter, so that they measure
// the repository's machinery (read, decode, fold, command window) and not one domain's Apply.

type benchCounted struct {
	N int64 `json:"n"`
}

func (benchCounted) EventType() string { return "Counted" }

func benchCounterType() Type[int64] {
	return Type[int64]{
		Name:   "counter",
		New:    func() int64 { return 0 },
		Apply:  func(s int64, e Event) int64 { return s + e.(benchCounted).N },
		Events: []Codec{EventCodec[benchCounted]()},
	}
}

// benchCounterStream returns a memory store holding the stream "counter-c" with n events, each
// appended by its own command with the metadata the repository writes.
func benchCounterStream(b *testing.B, n int) *eventstore.Memory {
	b.Helper()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	for i := range n {
		fp, _, err := window.FingerprintPayload(map[string]int{"n": i}, nil)
		if err != nil {
			b.Fatal(err)
		}
		data, err := json.Marshal(benchCounted{N: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		meta := eventstore.Metadata{CommandID: fmt.Sprintf("command-%d", i), Command: "count", Fingerprint: fp.String(), CorrelationID: fmt.Sprintf("request-%d", i)}
		if _, err := store.Append(ctx, "counter-c", int64(i), []eventstore.NewEvent{{Type: "Counted", Data: data, Metadata: meta}}); err != nil {
			b.Fatal(err)
		}
	}
	return store
}

// BenchmarkLoad measures Repository.Load on a stream of 10, 100 and 1000 events: reading the
// stream, decoding every event, folding it, and rebuilding the window of recent command ids.
// Every command loads its stream first, so this is the floor under every command's latency,
// and it grows with the stream's length.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			repo := NewRepository(benchCounterStream(b, n), benchCounterType(), Options{})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				loaded, err := repo.Load(ctx, "c")
				if err != nil {
					b.Fatal(err)
				}
				if loaded.Version != int64(n) {
					b.Fatalf("version %d, want %d", loaded.Version, n)
				}
			}
		})
	}
}
