// Package aggregatetest is the contract suite of aggregate.Store: the checks every store a
// repository reads and appends through must pass, the plain one (package eventlog) and each
// that wraps another (packages cache, snapshots, sealing), so that a wrapper adds what it adds
// and keeps every promise of the store it wraps; and the suite of upcasters (Upcasting), on
// every path a stored event is read by, on a log in memory or in PostgreSQL. It is a test
// harness: only tests import it.
package aggregatetest

import (
	"encoding/json"
	"slices"

	"library/internal/aggregate"
)

// Tally is the state of the suite's aggregate type: a total, and a name that is a personal value.
type Tally struct {
	Total int    `json:"total"`
	Added []int  `json:"added"`
	Name  string `json:"name"`
}

// Added adds to a tally.
type Added struct {
	N int `json:"n"`
}

// EventType implements aggregate.Event.
func (Added) EventType() string { return "Added" }

// Named names a tally: the name is personal.
type Named struct {
	Name string `json:"name"`
}

// EventType implements aggregate.Event.
func (Named) EventType() string { return "Named" }

// SealPersonal implements aggregate.PersonalEvent.
func (e Named) SealPersonal(seal func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, err = seal(e.Name)
	return e, err
}

// OpenPersonal implements aggregate.PersonalEvent.
func (e Named) OpenPersonal(open func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, err = open(e.Name)
	return e, err
}

// Type is the suite's aggregate type: kept in memory (Clone), snapshotted, personal when named.
func Type() aggregate.Type[Tally] {
	return aggregate.Type[Tally]{
		Name:   "tally",
		New:    func() Tally { return Tally{} },
		Apply:  apply,
		Events: []aggregate.Codec{aggregate.EventCodec[Added](), aggregate.EventCodec[Named]()},
		Clone:  func(t Tally) Tally { t.Added = slices.Clone(t.Added); return t },
		Snapshot: &aggregate.SnapshotCodec[Tally]{Version: 1,
			Encode: func(t Tally) ([]byte, error) { return json.Marshal(t) },
			Decode: func(b []byte) (Tally, error) {
				var t Tally
				err := json.Unmarshal(b, &t)
				return t, err
			}},
		Personal: func(t Tally) bool { return t.Name != "" },
	}
}

// apply changes the state it is given, as Apply may: a kept state must be cloned first.
func apply(t Tally, e aggregate.Event) Tally {
	switch e := e.(type) {
	case Added:
		t.Total += e.N
		t.Added = append(t.Added, e.N)
	case Named:
		t.Name = e.Name
	}
	return t
}
