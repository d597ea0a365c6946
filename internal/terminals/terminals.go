// Package terminals keeps the self-check kiosks that may log in over SIP2 (message 93): each
// has a name and a password that an operator made for it (`library sip terminals add`). The
// log keeps the password's argon2id hash (package secrethash), never the password, which is
// shown once, by Service.Add, and nowhere else.
//
// Every terminal is in one stream, terminals-registry, as TerminalAdded and TerminalRemoved
// events: a registry of a few dozen kiosks, changed by hand now and then, is read whole in one
// round trip and kept in memory, so neither a stream per terminal nor a snapshot (one more copy
// of every hash) would pay for itself.
//
// What it promises:
//
//   - A name is 1 to MaxNameLength characters from A-Z a-z 0-9 - _ . and is not case-sensitive:
//     it is kept, listed and matched in small letters, so "Kiosk-1" and "kiosk-1" are one
//     terminal. People type a name twice (the operator here, a technician in the kiosk's
//     settings, where some screens capitalise), and two terminals that differ only in case
//     would be a trap.
//   - A name is added once: adding it again is refused with errs.TerminalExists until it is
//     removed. Removing it and adding it again is how a terminal gets a new password.
//   - Login answers nil or errs.Unauthorized, the same error for an unknown name as for a wrong
//     password, after the same work: an unknown name is checked against a dummy hash of the
//     same cost, so the time taken does not tell which names exist.
//   - Neither a password nor a hash is in an error, a log line, or a printed value: an event's
//     hash prints as "[hash]" (PasswordHash); only its JSON, in the log, holds it.
//
// The domain (this file) is plain Go; service.go runs it through package aggregate.
package terminals

import (
	"cmp"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"library/internal/errs"
)

// MaxNameLength is the longest name a terminal may have.
const MaxNameLength = 64

// Event is a registry event; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// PasswordHash is a password's argon2id hash in the PHC format (package secrethash). It prints
// as "[hash]" with fmt's verbs and in slog, so that an event shown in a log line or an error
// never shows one; encoding/json, which the log stores events with, writes it whole.
type PasswordHash string

// String hides the hash.
func (PasswordHash) String() string { return "[hash]" }

// GoString hides the hash from %#v.
func (PasswordHash) GoString() string { return `"[hash]"` }

// LogValue hides the hash from slog.
func (PasswordHash) LogValue() slog.Value { return slog.StringValue("[hash]") }

// TerminalAdded records that the terminal Name may log in with the password whose hash is
// Hash, from At.
type TerminalAdded struct {
	Name string       `json:"name"`
	Hash PasswordHash `json:"hash"`
	At   time.Time    `json:"at"`
}

// LogValue leaves the hash out of slog's output, whose JSON handler would otherwise write the
// event as encoding/json does.
func (e TerminalAdded) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", e.Name), slog.Any("hash", e.Hash), slog.Time("at", e.At))
}

// TerminalRemoved records that the terminal Name may no longer log in, from At.
type TerminalRemoved struct {
	Name string    `json:"name"`
	At   time.Time `json:"at"`
}

// EventType names the event in the log; never rename it.
func (TerminalAdded) EventType() string { return "TerminalAdded" }

// EventType names the event in the log; never rename it.
func (TerminalRemoved) EventType() string { return "TerminalRemoved" }

// Terminal is a terminal as it is listed: its name and when it was added. Its hash stays in
// the registry.
type Terminal struct {
	Name    string
	AddedAt time.Time
}

// Registry is the state of the registry: the terminals added and not removed.
type Registry struct {
	terminals map[string]entry
}

// entry is a terminal in the registry.
type entry struct {
	hash    PasswordHash
	addedAt time.Time
}

// NewRegistry returns the state of a registry with no events.
func NewRegistry() Registry { return Registry{terminals: map[string]entry{}} }

// Clone returns a copy of r that Apply can change without changing r.
func Clone(r Registry) Registry { return Registry{terminals: maps.Clone(r.terminals)} }

// Apply returns the state after e.
func Apply(r Registry, e Event) Registry {
	switch e := e.(type) {
	case TerminalAdded:
		r.terminals[e.Name] = entry{hash: e.Hash, addedAt: e.At}
	case TerminalRemoved:
		delete(r.terminals, e.Name)
	}
	return r
}

// Terminals lists the terminals, by name.
func (r Registry) Terminals() []Terminal {
	list := make([]Terminal, 0, len(r.terminals))
	for name, e := range r.terminals {
		list = append(list, Terminal{Name: name, AddedAt: e.addedAt})
	}
	slices.SortFunc(list, func(a, b Terminal) int { return cmp.Compare(a.Name, b.Name) })
	return list
}

// hashOf returns the hash of the terminal name, which is checked already, and whether there is
// such a terminal.
func (r Registry) hashOf(name string) (PasswordHash, bool) {
	e, ok := r.terminals[name]
	return e.hash, ok
}

// CheckName returns name as the registry keeps it, in small letters, or why it can't be one.
func CheckName(name string) (string, error) {
	if name == "" || len(name) > MaxNameLength || strings.ContainsFunc(name, notNameChar) {
		return "", errs.E(errs.InvalidRequest, "a terminal name must be 1 to %d characters from A-Z a-z 0-9 - _ .", MaxNameLength)
	}
	return strings.ToLower(name), nil
}

func notNameChar(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-', r == '_', r == '.':
		return false
	}
	return true
}

// AddTerminal asks that a terminal named Name may log in with a new password.
type AddTerminal struct {
	Name string `json:"name"`
}

// Checked checks the name and returns the command with the name as the registry keeps it.
func (c AddTerminal) Checked() (AddTerminal, error) {
	name, err := CheckName(c.Name)
	return AddTerminal{Name: name}, err
}

// Decide adds the terminal, checked, with the hash of its password at time now; a name the
// registry holds is refused.
func (c AddTerminal) Decide(r Registry, hash PasswordHash, now time.Time) ([]Event, error) {
	if _, ok := r.terminals[c.Name]; ok {
		return nil, errs.E(errs.TerminalExists, "terminal %s is added already; to give it a new password, remove it and add it again", c.Name)
	}
	return []Event{TerminalAdded{Name: c.Name, Hash: hash, At: now.UTC().Truncate(time.Second)}}, nil
}

// RemoveTerminal asks that the terminal named Name may no longer log in.
type RemoveTerminal struct {
	Name string `json:"name"`
}

// Checked checks the name and returns the command with the name as the registry keeps it.
func (c RemoveTerminal) Checked() (RemoveTerminal, error) {
	name, err := CheckName(c.Name)
	return RemoveTerminal{Name: name}, err
}

// Decide removes the terminal, checked, at time now; a name the registry does not hold is
// errs.NotFound.
func (c RemoveTerminal) Decide(r Registry, now time.Time) ([]Event, error) {
	if _, ok := r.terminals[c.Name]; !ok {
		return nil, errs.E(errs.NotFound, "there is no terminal %s", c.Name)
	}
	return []Event{TerminalRemoved{Name: c.Name, At: now.UTC().Truncate(time.Second)}}, nil
}
