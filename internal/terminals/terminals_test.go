package terminals_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/terminals"
)

var (
	// now is not in UTC nor on a whole second: the events' times are both.
	now    = time.Date(2026, 3, 10, 15, 30, 15, 987654321, time.FixedZone("CET", 3600))
	nowUTC = time.Date(2026, 3, 10, 14, 30, 15, 0, time.UTC)

	hash    = terminals.PasswordHash("$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5")
	added   = terminals.TerminalAdded{Name: "kiosk-1", Hash: hash, At: nowUTC.Add(-time.Hour)}
	removed = terminals.TerminalRemoved{Name: "kiosk-1", At: nowUTC.Add(-time.Minute)}
)

func fold(given ...terminals.Event) terminals.Registry {
	r := terminals.NewRegistry()
	for _, e := range given {
		r = terminals.Apply(r, e)
	}
	return r
}

// The "when" steps check the command, then decide it, as the service does.

func add(name string) func(terminals.Registry) ([]terminals.Event, error) {
	return func(r terminals.Registry) ([]terminals.Event, error) {
		c, err := terminals.AddTerminal{Name: name}.Checked()
		if err != nil {
			return nil, err
		}
		return c.Decide(r, hash, now)
	}
}

func remove(name string) func(terminals.Registry) ([]terminals.Event, error) {
	return func(r terminals.Registry) ([]terminals.Event, error) {
		c, err := terminals.RemoveTerminal{Name: name}.Checked()
		if err != nil {
			return nil, err
		}
		return c.Decide(r, now)
	}
}

// Given events, when a command, then events or an error code.
func TestDecide(t *testing.T) {
	t.Parallel()
	addedNow := terminals.TerminalAdded{Name: "kiosk-1", Hash: hash, At: nowUTC}
	for _, c := range []struct {
		name  string
		given []terminals.Event
		when  func(terminals.Registry) ([]terminals.Event, error)
		then  []terminals.Event
		err   errs.Code
	}{
		{name: "add a new name", when: add("kiosk-1"), then: []terminals.Event{addedNow}},
		{name: "add a name in capitals: kept in small letters", when: add("Kiosk-1"), then: []terminals.Event{addedNow}},
		{name: "add every kind of character", when: add("Branch_2.Kiosk-07"),
			then: []terminals.Event{terminals.TerminalAdded{Name: "branch_2.kiosk-07", Hash: hash, At: nowUTC}}},
		{name: "add a name added already", given: []terminals.Event{added}, when: add("kiosk-1"), err: errs.TerminalExists},
		{name: "add a name added already, in other case", given: []terminals.Event{added}, when: add("KIOSK-1"), err: errs.TerminalExists},
		{name: "add a name removed", given: []terminals.Event{added, removed}, when: add("kiosk-1"), then: []terminals.Event{addedNow}},
		{name: "add another name", given: []terminals.Event{added}, when: add("kiosk-2"),
			then: []terminals.Event{terminals.TerminalAdded{Name: "kiosk-2", Hash: hash, At: nowUTC}}},
		{name: "remove a name added", given: []terminals.Event{added}, when: remove("KIOSK-1"),
			then: []terminals.Event{terminals.TerminalRemoved{Name: "kiosk-1", At: nowUTC}}},
		{name: "remove a name never added", when: remove("kiosk-1"), err: errs.NotFound},
		{name: "remove a name removed", given: []terminals.Event{added, removed}, when: remove("kiosk-1"), err: errs.NotFound},
		{name: "add an empty name", when: add(""), err: errs.InvalidRequest},
		{name: "add a name with a space", when: add("kiosk 1"), err: errs.InvalidRequest},
		{name: "add a name with a pipe, SIP2's separator", when: add("kiosk|1"), err: errs.InvalidRequest},
		{name: "add a name with an accent", when: add("kiosk-é"), err: errs.InvalidRequest},
		{name: "add a name too long", when: add(strings.Repeat("k", terminals.MaxNameLength+1)), err: errs.InvalidRequest},
		{name: "add a name at the longest", when: add(strings.Repeat("K", terminals.MaxNameLength)),
			then: []terminals.Event{terminals.TerminalAdded{Name: strings.Repeat("k", terminals.MaxNameLength), Hash: hash, At: nowUTC}}},
		{name: "remove a bad name", given: []terminals.Event{added}, when: remove("kiosk/1"), err: errs.InvalidRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.when(fold(c.given...))
			if c.err != "" {
				require.True(t, errs.Is(err, c.err), "want %s, got %v", c.err, err)
				require.Empty(t, got)
				require.NotContains(t, err.Error(), string(hash))
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.then, got)
		})
	}
}

// The registry lists its terminals by name, without their hashes, and a removed one not at
// all; Clone gives a registry that Apply changes without changing the original.
func TestRegistry(t *testing.T) {
	t.Parallel()
	b := terminals.TerminalAdded{Name: "b", Hash: hash, At: nowUTC}
	a := terminals.TerminalAdded{Name: "a", Hash: hash, At: nowUTC.Add(time.Hour)}
	r := fold(b, added, a)
	require.Equal(t, []terminals.Terminal{{Name: "a", AddedAt: a.At}, {Name: "b", AddedAt: b.At}, {Name: "kiosk-1", AddedAt: added.At}}, r.Terminals())
	kept := terminals.Clone(r)
	r = terminals.Apply(r, removed)
	require.Equal(t, []terminals.Terminal{{Name: "a", AddedAt: a.At}, {Name: "b", AddedAt: b.At}}, r.Terminals())
	require.Len(t, kept.Terminals(), 3, "the clone keeps what it had")
	require.Empty(t, fold().Terminals())
}

// A hash printed by any of fmt's verbs or by slog is a mark; the JSON the log stores is whole.
func TestAHashNeverPrints(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		out := fmt.Sprintf(verb, added)
		require.NotContains(t, out, "argon2id", verb)
		require.Contains(t, out, "[hash]", verb)
	}
	for _, handler := range []func(io.Writer) slog.Handler{
		func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) },
		func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) },
	} {
		var logged strings.Builder
		slog.New(handler(&logged)).Info("added", "event", added, "hash", added.Hash)
		require.NotContains(t, logged.String(), "argon2id")
		require.NotContains(t, logged.String(), "a2V5")
		require.Contains(t, logged.String(), "kiosk-1")
	}
	stored, err := json.Marshal(added)
	require.NoError(t, err)
	require.Contains(t, string(stored), `"hash":"`+string(hash)+`"`)
}
