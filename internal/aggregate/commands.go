package aggregate

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unique"

	"library/internal/eventstore"
)

// recentCommands is the last few commands of a stream, oldest first. It is built from the
// events' metadata and never changed once built: adding returns a new value, so a window kept in
// the cache can be shared by concurrent commands.
//
// A window is kept for every stream in the cache, so its entries are small: a command's key,
// the fingerprint of its payload as 16 bytes, its name and who ran it as unique handles, and the
// versions of the events it wrote. The events themselves stay in the log: a replay reads them
// back by version (they are its answer), so no event is held twice.
//
// The window is two slices, never written once shared: older, and recent, the last few. A
// command copies recent only (at most recentMax pointers), and every recentMax commands the two
// are joined, so a command does not copy the whole window. Only the last limit commands count.
type recentCommands struct {
	limit  int
	older  []*pastCommand
	recent []*pastCommand
}

// recentMax is how long recent grows before it is joined to older.
const recentMax = 16

// pastCommand is a command found in a stream's events.
type pastCommand struct {
	id          string
	name        unique.Handle[string]
	fingerprint fingerprint
	actor       unique.Handle[person] // who ran it: its key answers no one else
	first       int64                 // the version of its first event
	count       int64                 // how many events it wrote (a NothingChanged marker included)
}

// person is who ran a command, as far as its key is concerned: the role they acted in doesn't
// matter, only who they are.
type person struct{ subject, issuer string }

func personOf(a eventstore.Actor) unique.Handle[person] {
	return unique.Make(person{subject: a.Subject, issuer: a.Issuer})
}

// last is the version of the command's last event.
func (p *pastCommand) last() int64 { return p.first + p.count - 1 }

func newRecentCommands(limit int) recentCommands {
	return recentCommands{limit: limit}
}

// with returns the window after the given events, which follow the window's last event in
// version order. A command's events are appended together, so consecutive events with one
// command id belong to one command.
func (rc recentCommands) with(events []eventstore.Event) recentCommands {
	if rc.limit <= 0 || len(events) == 0 {
		return rc
	}
	older := rc.older
	recent := make([]*pastCommand, len(rc.recent), len(rc.recent)+len(events))
	copy(recent, rc.recent)
	extendable := false // whether the last command in recent is ours to extend
	for _, e := range events {
		id := e.Metadata.CommandID
		if id == "" {
			extendable = false
			continue
		}
		if last := lastOf(older, recent); last != nil && last.id == id && last.last()+1 == e.Version {
			if !extendable {
				copied := *last
				if len(recent) == 0 {
					older, recent = older[:len(older)-1], append(recent, &copied)
				} else {
					recent[len(recent)-1] = &copied
				}
				extendable = true
			}
			recent[len(recent)-1].count++
			continue
		}
		recent = append(recent, &pastCommand{id: id, name: unique.Make(e.Metadata.Command), fingerprint: fingerprintOf(e.Metadata.Fingerprint),
			actor: personOf(e.Metadata.Actor), first: e.Version, count: 1})
		extendable = true
	}
	next := recentCommands{limit: rc.limit, older: older, recent: recent}
	if len(recent) > recentMax {
		next = recentCommands{limit: rc.limit, older: next.all()}
	}
	return next
}

func lastOf(older, recent []*pastCommand) *pastCommand {
	if len(recent) > 0 {
		return recent[len(recent)-1]
	}
	if len(older) > 0 {
		return older[len(older)-1]
	}
	return nil
}

// all returns the window's commands that count, the last limit, oldest first, in a new slice.
func (rc recentCommands) all() []*pastCommand {
	list := make([]*pastCommand, 0, len(rc.older)+len(rc.recent))
	list = append(append(list, rc.older...), rc.recent...)
	if over := len(list) - rc.limit; over > 0 {
		list = list[over:]
	}
	return list
}

// find returns the command with the given id among the last limit, the newest first; "" is
// never found.
func (rc recentCommands) find(id string) (*pastCommand, bool) {
	if id == "" {
		return nil, false
	}
	seen := 0
	for _, part := range [][]*pastCommand{rc.recent, rc.older} {
		for i := len(part) - 1; i >= 0 && seen < rc.limit; i-- {
			if part[i].id == id {
				return part[i], true
			}
			seen++
		}
	}
	return nil, false
}

// bytes estimates what the window takes in memory: what the cache counts.
func (rc recentCommands) bytes() int {
	n := 8 * (cap(rc.older) + cap(rc.recent))
	for _, part := range [][]*pastCommand{rc.older, rc.recent} {
		for _, c := range part {
			n += pastCommandBytes + len(c.id)
		}
	}
	return n
}

// pastCommandBytes is what a pastCommand takes, its id's bytes aside: the struct (80 bytes)
// and its allocation's rounding.
const pastCommandBytes = 96

// fingerprint is a short hash of a command's payload.
type fingerprint [16]byte

// fingerprintPrefix begins every fingerprint as the metadata writes it.
const fingerprintPrefix = "sha256:"

// String is the fingerprint as the metadata writes it.
func (f fingerprint) String() string { return fingerprintPrefix + hex.EncodeToString(f[:]) }

// fingerprintOf reads a fingerprint from the metadata. One this package did not write is
// hashed, so that it still compares equal to itself and to nothing else.
func fingerprintOf(s string) fingerprint {
	var f fingerprint
	if hexed, ok := strings.CutPrefix(s, fingerprintPrefix); ok && len(hexed) == 2*len(f) {
		if _, err := hex.Decode(f[:], []byte(hexed)); err == nil {
			return f
		}
	}
	sum := sha256.Sum256([]byte(s))
	copy(f[:], sum[:])
	return f
}

// fingerprintPayload hashes a payload's JSON encoding: with key, a keyed hash (HMAC-SHA-256),
// and the plain hash that commands carried before, for comparing with them. Go encodes struct
// fields in a fixed order, so one payload always has one fingerprint.
func fingerprintPayload(payload any, key []byte) (fp, legacy fingerprint, err error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return fingerprint{}, fingerprint{}, fmt.Errorf("aggregate: fingerprint payload: %w", err)
	}
	sum := sha256.Sum256(b)
	copy(legacy[:], sum[:])
	if len(key) == 0 {
		return legacy, legacy, nil
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	copy(fp[:], mac.Sum(nil))
	return fp, legacy, nil
}
