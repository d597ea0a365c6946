package window

import (
	"encoding/json"
	"fmt"
	"unique"
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

// Encode is the window as a snapshot keeps it.
func Encode(rc Window) ([]byte, error) {
	list := rc.All()
	entries := make([]entry, len(list))
	for i, c := range list {
		who := c.Actor.Value()
		entries[i] = entry{ID: c.ID, Name: c.Name.Value(), Fingerprint: c.Fingerprint.String(),
			Subject: who.subject, Issuer: who.issuer, First: c.First, Count: c.Count}
	}
	return json.Marshal(entries)
}

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
	rc.older = rc.All()
	return rc, nil
}
