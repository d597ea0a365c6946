package aggregate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"library/internal/eventstore"
)

// recentCommands is the last few commands of a stream, oldest first, with the events each one
// wrote. It is built from the events' metadata and never changed once built: adding returns a
// new value, so a window kept in the cache can be shared by concurrent commands.
type recentCommands struct {
	limit int
	list  []*pastCommand
}

// pastCommand is a command found in a stream's events.
type pastCommand struct {
	id          string
	name        string
	fingerprint string
	actor       eventstore.Actor // who ran it: its key answers no one else
	events      []keptEvent
}

// keptEvent is what a replayed answer needs of an event, kept small since a window holds many:
// the metadata is in its command, and the time is in UTC.
type keptEvent struct {
	Version    int64
	Position   int64
	RecordedAt int64 // Unix nanoseconds
	Type       string
	Data       json.RawMessage
}

func (k keptEvent) event(streamID string) eventstore.Event {
	return eventstore.Event{StreamID: streamID, Version: k.Version, Position: k.Position,
		RecordedAt: time.Unix(0, k.RecordedAt).UTC(), Type: k.Type, Data: k.Data}
}

func newRecentCommands(limit int) recentCommands {
	return recentCommands{limit: limit}
}

// with returns the window after the given events, which follow the window's last event in
// version order. A command's events are appended together, so consecutive events with one
// command id belong to one command.
//
// Event types are stored as the strings in types when they are there, so that a window does not
// keep a copy of the type's name per event.
func (rc recentCommands) with(events []eventstore.Event, types map[string]string) recentCommands {
	if rc.limit <= 0 || len(events) == 0 {
		return rc
	}
	list := make([]*pastCommand, len(rc.list), len(rc.list)+len(events))
	copy(list, rc.list)
	extendable := false // whether the last command in list is ours to extend
	for _, e := range events {
		id := e.Metadata.CommandID
		if id == "" {
			extendable = false
			continue
		}
		typ, known := types[e.Type]
		if !known {
			typ = e.Type
		}
		kept := keptEvent{Version: e.Version, Position: e.Position, RecordedAt: e.RecordedAt.UnixNano(), Type: typ, Data: e.Data}
		if n := len(list); n > 0 && list[n-1].id == id {
			last := list[n-1]
			if !extendable {
				copied := *last
				copied.events = append([]keptEvent(nil), last.events...)
				last, list[n-1], extendable = &copied, &copied, true
			}
			last.events = append(last.events, kept)
			continue
		}
		list = append(list, &pastCommand{id: id, name: e.Metadata.Command, fingerprint: e.Metadata.Fingerprint,
			actor: eventstore.Actor{Subject: e.Metadata.Actor.Subject, Issuer: e.Metadata.Actor.Issuer}, events: []keptEvent{kept}})
		extendable = true
	}
	if over := len(list) - rc.limit; over > 0 {
		list = list[over:]
	}
	return recentCommands{limit: rc.limit, list: list}
}

// find returns the command with the given id, the newest first; "" is never found.
func (rc recentCommands) find(id string) (*pastCommand, bool) {
	if id == "" {
		return nil, false
	}
	for i := len(rc.list) - 1; i >= 0; i-- {
		if rc.list[i].id == id {
			return rc.list[i], true
		}
	}
	return nil, false
}

// events counts the events the window holds: what it costs to keep.
func (rc recentCommands) events() int {
	n := 0
	for _, c := range rc.list {
		n += len(c.events)
	}
	return n
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
