package window

import (
	"fmt"
	"testing"

	"library/internal/eventstore"
)

// commandIDsPerStream is the size of a window by default: the aggregate's default
// CommandIDsPerStream.
const commandIDsPerStream = 100

// BenchmarkRecentCommandsFind measures looking a command id up in a full window of 100
// remembered commands (the aggregate's default CommandIDsPerStream): a hit is a retried
// command, answered from the log; a miss is every new command, which is looked up before it is
// decided.
func BenchmarkRecentCommandsFind(b *testing.B) {
	events := make([]eventstore.Event, commandIDsPerStream)
	for i := range events {
		events[i] = eventstore.Event{
			Version:  int64(i + 1),
			Type:     "Counted",
			Metadata: eventstore.Metadata{CommandID: fmt.Sprintf("command-%d", i), Command: "count"},
		}
	}
	rc := New(commandIDsPerStream).With(events)
	for _, tc := range []struct {
		name, id string
		found    bool
	}{
		{"hit", "command-50", true},
		{"miss", "command-unknown", false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := rc.Find(tc.id); ok != tc.found {
					b.Fatalf("find(%q) = %v, want %v", tc.id, ok, tc.found)
				}
			}
		})
	}
}

// fullWindow is a window of 100 commands (the aggregate's default CommandIDsPerStream), each
// with a key as clients make them and a signed-in librarian.
func fullWindow() Window {
	events := make([]eventstore.Event, commandIDsPerStream)
	for i := range events {
		events[i] = eventstore.Event{Version: int64(i + 1), Type: "PaymentReceived", Metadata: eventstore.Metadata{
			CommandID: fmt.Sprintf("9f1c2d4e-5b6a-4c3d-8e7f-%012d", i), Command: "pay", Fingerprint: Fingerprint{byte(i)}.String(),
			Actor: eventstore.Actor{Subject: "librarian-7", Issuer: "https://id.example.org", Role: "librarian"}}}
	}
	return New(commandIDsPerStream).With(events)
}

// BenchmarkEncode measures writing a full window into a snapshot, as every SnapshotEvery
// events of a stream do; "marshal" is the way it was written before, json.Marshal of its
// entries, for comparison.
func BenchmarkEncode(b *testing.B) {
	rc := fullWindow()
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Encode(rc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			marshalled(b, rc)
		}
	})
}
