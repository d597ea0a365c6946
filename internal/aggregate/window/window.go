package window

import (
	"unique"

	"library/internal/eventstore"
)

// Window is the last few commands of a stream, oldest first. It is built from the events'
// metadata and never changed once built: adding returns a new value, so a window kept in the
// cache can be shared by concurrent commands.
//
// A window is kept for every stream in the cache, so its entries are small: a command's key,
// the fingerprint of its payload as 16 bytes, its name and who ran it as unique handles, and the
// versions of the events it wrote. The events themselves stay in the log: a replay reads them
// back by version (they are its answer), so no event is held twice.
//
// The window is two slices, never written once shared: older, and recent, the last few. A
// command copies recent only (at most recentMax pointers), and every recentMax commands the two
// are joined, so a command does not copy the whole window. Only the last limit commands count.
type Window struct {
	limit  int
	older  []*Command
	recent []*Command
	// idBytes are the bytes of the ids of the commands in older and recent, for Bytes, which
	// the cache asks after every command: kept as the window grows rather than counted.
	idBytes int
}

// recentMax is how long recent grows before it is joined to older.
const recentMax = 16

// Command is a command found in a stream's events.
type Command struct {
	ID          string
	Name        unique.Handle[string]
	Fingerprint Fingerprint
	Actor       unique.Handle[Person] // who ran it: its key answers no one else
	First       int64                 // the version of its first event
	Count       int64                 // how many events it wrote (a NothingChanged marker included)
}

// Person is who ran a command, as far as its key is concerned: the role they acted in doesn't
// matter, only who they are.
type Person struct{ subject, issuer string }

// PersonOf is the person who acted as a.
func PersonOf(a eventstore.Actor) unique.Handle[Person] {
	return unique.Make(Person{subject: a.Subject, issuer: a.Issuer})
}

// Last is the version of the command's last event.
func (p *Command) Last() int64 { return p.First + p.Count - 1 }

// New returns an empty window of the last limit commands.
func New(limit int) Window {
	return Window{limit: limit}
}

// With returns the window after the given events, which follow the window's last event in
// version order. A command's events are appended together, so consecutive events with one
// command id belong to one command.
func (rc Window) With(events []eventstore.Event) Window {
	if rc.limit <= 0 || len(events) == 0 {
		return rc
	}
	older, idBytes := rc.older, rc.idBytes
	recent := make([]*Command, len(rc.recent), len(rc.recent)+len(events))
	copy(recent, rc.recent)
	extendable := false // whether the last command in recent is ours to extend
	for _, e := range events {
		id := e.Metadata.CommandID
		if id == "" {
			extendable = false
			continue
		}
		if last := lastOf(older, recent); last != nil && last.ID == id && last.Last()+1 == e.Version {
			if !extendable {
				copied := *last
				if len(recent) == 0 {
					older, recent = older[:len(older)-1], append(recent, &copied)
				} else {
					recent[len(recent)-1] = &copied
				}
				extendable = true
			}
			recent[len(recent)-1].Count++
			continue
		}
		recent = append(recent, &Command{ID: id, Name: unique.Make(e.Metadata.Command), Fingerprint: FingerprintOf(e.Metadata.Fingerprint),
			Actor: PersonOf(e.Metadata.Actor), First: e.Version, Count: 1})
		idBytes += len(id)
		extendable = true
	}
	next := Window{limit: rc.limit, older: older, recent: recent, idBytes: idBytes}
	if len(recent) > recentMax {
		next = joined(rc.limit, next.All())
	}
	return next
}

// joined is the window of the last limit commands of all, in older.
func joined(limit int, all []*Command) Window {
	rc := Window{limit: limit, older: all}
	for _, c := range all {
		rc.idBytes += len(c.ID)
	}
	return rc
}

func lastOf(older, recent []*Command) *Command {
	if len(recent) > 0 {
		return recent[len(recent)-1]
	}
	if len(older) > 0 {
		return older[len(older)-1]
	}
	return nil
}

// All returns the window's commands that count, the last limit, oldest first, in a new slice.
func (rc Window) All() []*Command {
	list := make([]*Command, 0, len(rc.older)+len(rc.recent))
	list = append(append(list, rc.older...), rc.recent...)
	if over := len(list) - rc.limit; over > 0 {
		list = list[over:]
	}
	return list
}

// Find returns the command with the given id among the last limit, the newest first; "" is
// never found.
func (rc Window) Find(id string) (*Command, bool) {
	if id == "" {
		return nil, false
	}
	seen := 0
	for _, part := range [][]*Command{rc.recent, rc.older} {
		for i := len(part) - 1; i >= 0 && seen < rc.limit; i-- {
			if part[i].ID == id {
				return part[i], true
			}
			seen++
		}
	}
	return nil, false
}

// Bytes estimates what the window takes in memory: what the cache counts. It counts every
// command the window holds, those past the last limit too until it lets them go, and costs
// the same however many it holds.
func (rc Window) Bytes() int {
	return 8*(cap(rc.older)+cap(rc.recent)) + commandBytes*(len(rc.older)+len(rc.recent)) + rc.idBytes
}

// commandBytes is what a Command takes, its id's bytes aside: the struct (80 bytes) and its
// allocation's rounding.
const commandBytes = 96
