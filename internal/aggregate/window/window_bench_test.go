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
