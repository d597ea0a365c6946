package aggregatetest

import (
	"encoding/json"
	"slices"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
)

// The upcasting suite's aggregate is a shelf, whose Stocked event changed shape twice, each
// change released on its own: release 1 wrote {"n":2}; release 2 renamed n to count
// ({"count":2}); release 3, the code as it is now, names the shelf, which the older shapes left
// to the stream ({"count":2,"shelf":"a"}). Emptied never changed. Each release has its own
// Type, as its binary would, and they all write to one log.

// Stocked is the event as the code knows it now: schema version 3.
type Stocked struct {
	Count int    `json:"count"`
	Shelf string `json:"shelf"`
}

// EventType implements aggregate.Event.
func (Stocked) EventType() string { return "Stocked" }

// stockedV1 is Stocked as release 1 knew it.
type stockedV1 struct {
	N int `json:"n"`
}

func (stockedV1) EventType() string { return "Stocked" }

// stockedV2 is Stocked as release 2 knew it.
type stockedV2 struct {
	Count int `json:"count"`
}

func (stockedV2) EventType() string { return "Stocked" }

// Emptied empties a shelf. Its shape never changed: schema version 1 in every release.
type Emptied struct{}

// EventType implements aggregate.Event.
func (Emptied) EventType() string { return "Emptied" }

// RenameN is Stocked's upcaster from version 1 to 2.
func RenameN(in aggregate.StoredData) (json.RawMessage, error) {
	var v1 stockedV1
	if err := json.Unmarshal(in.Data, &v1); err != nil {
		return nil, err
	}
	return json.Marshal(stockedV2{Count: v1.N})
}

// NameTheShelf is Stocked's upcaster from version 2 to 3: the shelf is the stream's.
func NameTheShelf(in aggregate.StoredData) (json.RawMessage, error) {
	var v2 stockedV2
	if err := json.Unmarshal(in.Data, &v2); err != nil {
		return nil, err
	}
	return json.Marshal(Stocked{Count: v2.Count, Shelf: ShelfType().ID(in.StreamID)})
}

// Shelf is the state of a shelf: how many it holds, and the shelf each Stocked named.
type Shelf struct {
	Count   int      `json:"count"`
	Shelves []string `json:"shelves"`
}

// ShelfType is the shelf as release 3 knows it: kept in memory (Clone) and snapshotted.
func ShelfType() aggregate.Type[Shelf] {
	return aggregate.Type[Shelf]{
		Name:   "shelf",
		New:    func() Shelf { return Shelf{} },
		Apply:  applyShelf,
		Events: []aggregate.Codec{aggregate.EventCodec[Stocked](RenameN, NameTheShelf), aggregate.EventCodec[Emptied]()},
		Clone:  func(s Shelf) Shelf { s.Shelves = slices.Clone(s.Shelves); return s },
		Snapshot: &aggregate.SnapshotCodec[Shelf]{Version: 1,
			Encode: func(s Shelf) ([]byte, error) { return json.Marshal(s) },
			Decode: func(b []byte) (Shelf, error) {
				var s Shelf
				err := json.Unmarshal(b, &s)
				return s, err
			}},
	}
}

func applyShelf(s Shelf, e aggregate.Event) Shelf {
	switch e := e.(type) {
	case Stocked:
		s.Count += e.Count
		s.Shelves = append(s.Shelves, e.Shelf)
	case Emptied:
		s.Count = 0
	}
	return s
}

// olderShelf is the shelf as release 1 or 2 knew it: a count, with that release's codecs.
func olderShelf(stocked aggregate.Codec) aggregate.Type[int] {
	return aggregate.Type[int]{
		Name: "shelf",
		New:  func() int { return 0 },
		Apply: func(n int, e aggregate.Event) int {
			switch e := e.(type) {
			case stockedV1:
				return n + e.N
			case stockedV2:
				return n + e.Count
			}
			return 0
		},
		Events: []aggregate.Codec{stocked, aggregate.EventCodec[Emptied]()},
	}
}

// release1 and release2 are the shelf's older releases.
func release1() aggregate.Type[int] { return olderShelf(aggregate.EventCodec[stockedV1]()) }
func release2() aggregate.Type[int] { return olderShelf(aggregate.EventCodec[stockedV2](RenameN)) }

// stockPayload is what every release's stock command is asked, so that a key one release
// recorded is the same command to another.
type stockPayload struct {
	N int `json:"n"`
}

// stock is a command that stocks n under key, deciding the event of its release: made of n.
func stock[S any](n int, key string, event func(n int) aggregate.Event) aggregate.Command[S] {
	return aggregate.Command[S]{
		Name:    "stock",
		Origin:  aggregate.Origin{CommandID: key},
		Payload: stockPayload{N: n},
		Decide:  func(S) ([]aggregate.Event, error) { return []aggregate.Event{event(n)}, nil },
	}
}

func stockV1(n int, key string) aggregate.Command[int] {
	return stock[int](n, key, func(n int) aggregate.Event { return stockedV1{N: n} })
}

func stockV2(n int, key string) aggregate.Command[int] {
	return stock[int](n, key, func(n int) aggregate.Event { return stockedV2{Count: n} })
}

// stockNow is release 3's command: it knows the shelf it stocks.
func stockNow(shelf string, n int, key string) aggregate.Command[Shelf] {
	return stock[Shelf](n, key, func(n int) aggregate.Event { return Stocked{Count: n, Shelf: shelf} })
}

// repository is a repository of t's on log, with what opts ask for stacked on it.
func repository[S any](log aggregate.Log, t aggregate.Type[S], opts aggregate.Options) *core.Repository[S] {
	return core.New(stack.Store(log, t, opts), t, opts)
}
