package window

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/eventstore"
)

// The window, however its batches come, holds what a plain list of every command would end
// with: the last limit keyed commands, each with the versions of all its events, and finds
// exactly those.
func TestWindowIsTheLastCommands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.IntRange(1, 40).Draw(t, "limit")
		rc := New(limit)
		type model struct {
			id           string
			first, count int64
		}
		var all []model
		version := int64(0)
		for b := range rapid.IntRange(1, 30).Draw(t, "batches") {
			var batch []eventstore.Event
			for c := range rapid.IntRange(1, 6).Draw(t, fmt.Sprint("commands", b)) {
				id := ""
				if rapid.Bool().Draw(t, fmt.Sprint("keyed", b, c)) {
					id = fmt.Sprintf("k%d-%d", b, c)
				}
				n := rapid.IntRange(1, 3).Draw(t, fmt.Sprint("events", b, c))
				if id != "" {
					all = append(all, model{id: id, first: version + 1, count: int64(n)})
				}
				for range n {
					version++
					batch = append(batch, eventstore.Event{Version: version, Metadata: eventstore.Metadata{CommandID: id, Command: "c"}})
				}
			}
			rc = rc.With(batch)
			require.Equal(t, weighed(rc), rc.Bytes(), "what the window weighs, as it grows")
		}
		want := all[max(0, len(all)-limit):]
		got := rc.All()
		require.Len(t, got, len(want))
		for i, w := range want {
			require.Equal(t, w.id, got[i].ID)
			require.Equal(t, w.first, got[i].First)
			require.Equal(t, w.count, got[i].Count)
			found, ok := rc.Find(w.id)
			require.True(t, ok)
			require.Same(t, got[i], found)
		}
		for _, gone := range all[:len(all)-len(want)] {
			_, ok := rc.Find(gone.id)
			require.False(t, ok, "%s is out of the window", gone.id)
		}
	})
}

// A key answers the person who used it, and who a person is takes both their subject and the
// provider that vouches for it: one subject at two issuers is two people. The role they acted
// in does not matter.
func TestAPersonIsTheirSubjectAtTheirIssuer(t *testing.T) {
	alice := eventstore.Actor{Subject: "alice", Issuer: "https://a.example", Role: "member"}
	sameSubjectElsewhere := eventstore.Actor{Subject: "alice", Issuer: "https://b.example", Role: "member"}
	asStaff := eventstore.Actor{Subject: "alice", Issuer: "https://a.example", Role: "librarian"}
	require.NotEqual(t, PersonOf(alice), PersonOf(sameSubjectElsewhere), "another provider's alice")
	require.NotEqual(t, PersonOf(alice), PersonOf(eventstore.Actor{Subject: "bob", Issuer: "https://a.example"}))
	require.Equal(t, PersonOf(alice), PersonOf(asStaff), "alice in another role")

	events := []eventstore.Event{{Version: 1, Metadata: eventstore.Metadata{CommandID: "k", Command: "pay", Actor: alice}}}
	kept, err := Encode(New(10).With(events))
	require.NoError(t, err)
	decoded, err := Decode(kept, 10)
	require.NoError(t, err)
	found, ok := decoded.Find("k")
	require.True(t, ok)
	require.Equal(t, PersonOf(alice), found.Actor, "a snapshot's window keeps the issuer")
	require.NotEqual(t, PersonOf(sameSubjectElsewhere), found.Actor)
}

// marshalled is the window as Encode wrote it before it wrote JSON by hand: json.Marshal of its
// entries.
func marshalled(t require.TestingT, rc Window) []byte {
	var entries []entry
	for _, c := range rc.All() {
		who := c.Actor.Value()
		entries = append(entries, entry{ID: c.ID, Name: c.Name.Value(), Fingerprint: c.Fingerprint.String(),
			Subject: who.subject, Issuer: who.issuer, First: c.First, Count: c.Count})
	}
	if entries == nil {
		entries = []entry{}
	}
	b, err := json.Marshal(entries)
	require.NoError(t, err)
	return b
}

// A window is encoded as json.Marshal encodes its entries, byte for byte, so that snapshots
// written before and after read alike; and it decodes to what it was.
func TestEncodeIsMarshalOfTheEntries(t *testing.T) {
	t.Parallel()
	text := rapid.OneOf(rapid.StringMatching(`[ -~]{1,20}`), rapid.SampledFrom([]string{"<a&b>", `"\`, "Zoë", "\u2028", "\xff"}), rapid.String())
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.IntRange(1, 30).Draw(t, "limit")
		var events []eventstore.Event
		for i := range rapid.IntRange(0, 40).Draw(t, "events") {
			events = append(events, eventstore.Event{Version: int64(i + 1), Metadata: eventstore.Metadata{
				CommandID: rapid.OneOf(rapid.Just(""), text).Draw(t, "id"), Command: text.Draw(t, "command"),
				Fingerprint: rapid.OneOf(text, rapid.Just(Fingerprint{1, 2, 0xff}.String())).Draw(t, "fp"),
				Actor: eventstore.Actor{Subject: rapid.OneOf(rapid.Just(""), text).Draw(t, "sub"),
					Issuer: rapid.OneOf(rapid.Just(""), text).Draw(t, "iss"), Role: "member"},
			}})
		}
		rc := New(limit).With(events)
		encoded, err := Encode(rc)
		require.NoError(t, err)
		require.Equal(t, string(marshalled(t, rc)), string(encoded))
		decoded, err := Decode(encoded, limit)
		require.NoError(t, err)
		if !strings.Contains(string(encoded), `\ufffd`) { // invalid UTF-8 is read back as U+FFFD
			require.Equal(t, rc.All(), decoded.All())
		}
		require.Equal(t, weighed(decoded), decoded.Bytes())
	})
}

// weighed is what Bytes says a window weighs, counted command by command.
func weighed(rc Window) int {
	n := 8 * (cap(rc.older) + cap(rc.recent))
	for _, part := range [][]*Command{rc.older, rc.recent} {
		for _, c := range part {
			n += commandBytes + len(c.ID)
		}
	}
	return n
}
