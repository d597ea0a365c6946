package aggregate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"library/internal/eventstore"
)

// recentCommands remembers the last few commands of a stream, by id, with the events each one
// wrote. It is rebuilt from the events' metadata every time a stream is loaded.
type recentCommands struct {
	limit int
	order []*pastCommand // oldest first
	byID  map[string]*pastCommand
}

// pastCommand is a command found in a stream's events.
type pastCommand struct {
	id          string
	name        string
	fingerprint string
	events      []eventstore.Event
}

func newRecentCommands(limit int) recentCommands {
	return recentCommands{limit: limit, byID: make(map[string]*pastCommand)}
}

// add records an event. A command's events are appended together, so consecutive events with
// one command id belong to one command.
func (rc *recentCommands) add(e eventstore.Event) {
	id := e.Metadata.CommandID
	if id == "" || rc.limit <= 0 {
		return
	}
	if n := len(rc.order); n > 0 && rc.order[n-1].id == id {
		last := rc.order[n-1]
		last.events = append(last.events, e)
		return
	}
	c := &pastCommand{id: id, name: e.Metadata.Command, fingerprint: e.Metadata.Fingerprint, events: []eventstore.Event{e}}
	rc.order = append(rc.order, c)
	rc.byID[id] = c
	if len(rc.order) > rc.limit {
		oldest := rc.order[0]
		rc.order[0] = nil
		rc.order = rc.order[1:]
		if rc.byID[oldest.id] == oldest {
			delete(rc.byID, oldest.id)
		}
	}
}

func (rc *recentCommands) find(id string) (*pastCommand, bool) {
	if id == "" {
		return nil, false
	}
	c, ok := rc.byID[id]
	return c, ok
}

// fingerprint is a short hash of a payload's JSON encoding. Go encodes struct fields in a fixed
// order, so one payload always has one fingerprint.
func fingerprint(payload any) (string, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return "", fmt.Errorf("aggregate: fingerprint payload: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:16]), nil
}
