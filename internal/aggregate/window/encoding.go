package window

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"unique"

	"library/internal/eventstore"
)

// entry is a Command as a snapshot keeps it.
type entry struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Fingerprint string `json:"fp"`
	Subject     string `json:"sub,omitempty"`
	Issuer      string `json:"iss,omitempty"`
	First       int64  `json:"first"`
	Count       int64  `json:"count"`
}

// Encode is the window as a snapshot keeps it: a JSON array of entry, written as json.Marshal
// writes it, byte for byte, but without its reflection and a string for each fingerprint.
func Encode(rc Window) ([]byte, error) {
	list := rc.All()
	size := 2
	for _, c := range list {
		who := c.Actor.Value()
		size += entryBytes + len(c.ID) + len(c.Name.Value()) + len(who.subject) + len(who.issuer)
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, c := range list {
		if i > 0 {
			b = append(b, ',')
		}
		who := c.Actor.Value()
		b = eventstore.AppendJSONString(append(b, `{"id":`...), c.ID)
		b = eventstore.AppendJSONString(append(b, `,"name":`...), c.Name.Value())
		b = append(hex.AppendEncode(append(b, `,"fp":"`+fingerprintPrefix...), c.Fingerprint[:]), '"')
		if who.subject != "" {
			b = eventstore.AppendJSONString(append(b, `,"sub":`...), who.subject)
		}
		if who.issuer != "" {
			b = eventstore.AppendJSONString(append(b, `,"iss":`...), who.issuer)
		}
		b = strconv.AppendInt(append(b, `,"first":`...), c.First, 10)
		b = strconv.AppendInt(append(b, `,"count":`...), c.Count, 10)
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// entryBytes is what an entry takes, encoded, besides its strings: its names, quotes and commas,
// the fingerprint, and room for two numbers and a few escapes.
const entryBytes = 128

// Decode reads a window that Encode wrote, as a window of the last limit commands.
func Decode(b []byte, limit int) (Window, error) {
	var entries []entry
	if err := json.Unmarshal(b, &entries); err != nil {
		return Window{}, err
	}
	rc := Window{limit: limit, older: make([]*Command, 0, len(entries))}
	for _, e := range entries {
		if e.ID == "" || e.First < 1 || e.Count < 1 {
			return Window{}, fmt.Errorf("a window entry without an id or events")
		}
		rc.older = append(rc.older, &Command{ID: e.ID, Name: unique.Make(e.Name), Fingerprint: FingerprintOf(e.Fingerprint),
			Actor: unique.Make(Person{subject: e.Subject, issuer: e.Issuer}), First: e.First, Count: e.Count})
	}
	return joined(limit, rc.All()), nil
}
