package aggregate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
)

// Stocked is an event whose shape changed twice: version 1 was {"n":2}; version 2 renamed n to
// count; version 3 names the shelf, which versions 1 and 2 left to the stream.
type Stocked struct {
	Count int    `json:"count"`
	Shelf string `json:"shelf"`
}

func (Stocked) EventType() string { return "Stocked" }

// renameN is the upcaster from version 1 to 2.
func renameN(in aggregate.StoredData) (json.RawMessage, error) {
	var v1 struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(in.Data, &v1); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]int{"count": v1.N})
}

// nameTheShelf is the upcaster from version 2 to 3: the shelf is the stream's.
func nameTheShelf(in aggregate.StoredData) (json.RawMessage, error) {
	var v2 struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(in.Data, &v2); err != nil {
		return nil, err
	}
	return json.Marshal(Stocked{Count: v2.Count, Shelf: in.StreamID[len("shelf-"):]})
}

func shelfType() aggregate.Type[int] {
	return aggregate.Type[int]{
		Name:   "shelf",
		New:    func() int { return 0 },
		Apply:  func(s int, e aggregate.Event) int { return s + e.(Stocked).Count },
		Events: []aggregate.Codec{aggregate.EventCodec[Stocked](renameN, nameTheShelf)},
	}
}

func stored(schema int, data string) eventstore.Event {
	return eventstore.Event{StreamID: "shelf-a", Version: 1, Type: "Stocked", Data: json.RawMessage(data),
		Metadata: eventstore.Metadata{Schema: schema}}
}

// An event is read as the code knows it now from whichever version it was stored at: version 1
// with no version recorded (as every event from before versions were) or with 1, and each later
// one, through the upcasters from its version on, by both decoders.
func TestUpcastersReadEveryVersionAsTheCurrentOne(t *testing.T) {
	t.Parallel()
	typ := shelfType()
	decoder := aggregate.NewDecoder(typ.Events)
	want := Stocked{Count: 2, Shelf: "a"}
	for _, e := range []eventstore.Event{
		stored(0, `{"n":2}`), stored(1, `{"n":2}`), stored(2, `{"count":2}`), stored(3, `{"count":2,"shelf":"a"}`),
	} {
		got, err := typ.Decode(e)
		require.NoError(t, err, "version %d", e.Metadata.Schema)
		require.Equal(t, want, got, "Type.Decode, version %d", e.Metadata.Schema)
		got, err = decoder.Decode(e)
		require.NoError(t, err, "version %d", e.Metadata.Schema)
		require.Equal(t, want, got, "Decoder.Decode, version %d", e.Metadata.Schema)
	}
	require.Equal(t, 3, typ.Events[0].Schema())
	require.Equal(t, 1, aggregate.EventCodec[Stocked]().Schema(), "no upcasters: version 1")
}

// An event stored at a version newer than the code knows, written by a newer release, is
// refused with an error that says so, and that a caller may try again (errs.Unavailable); it is
// never read as an older shape. A type with no upcasters reads version 1 only.
func TestAnEventOfANewerVersionIsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		codec aggregate.Codec
		e     eventstore.Event
		want  aggregate.NewerSchemaError
	}{
		{shelfType().Events[0], stored(4, `{"count":2,"shelf":"a","aisle":7}`), aggregate.NewerSchemaError{Type: "Stocked", Stored: 4, Current: 3}},
		{aggregate.EventCodec[Stocked](), stored(2, `{"count":2}`), aggregate.NewerSchemaError{Type: "Stocked", Stored: 2, Current: 1}},
	} {
		typ := aggregate.Type[int]{Name: "shelf", Events: []aggregate.Codec{c.codec}}
		for _, decode := range []func(eventstore.Event) (aggregate.Event, error){typ.Decode, aggregate.NewDecoder(typ.Events).Decode} {
			got, err := decode(c.e)
			require.Nil(t, got)
			require.True(t, errs.Is(err, errs.Unavailable), "%v", err)
			var newer *aggregate.NewerSchemaError
			require.ErrorAs(t, err, &newer)
			require.Equal(t, c.want, *newer)
			require.ErrorContains(t, err, "a Stocked event was written by a newer release of the service")
			require.ErrorContains(t, err, fmt.Sprintf("Stocked stored at schema version %d; this release reads up to version %d", c.want.Stored, c.want.Current))
		}
	}
}

// An upcaster that fails fails the read, naming the type and the versions it was between.
func TestAnUpcasterThatFailsSaysWhere(t *testing.T) {
	t.Parallel()
	_, err := shelfType().Decode(stored(2, `{"count":"two"}`))
	require.ErrorContains(t, err, "upcast Stocked from schema version 2 to 3")
	require.False(t, errs.Is(err, errs.Unavailable), "a broken upcast is not to be tried again")
}

// Encode records each event's schema version in its metadata: none for version 1, so that its
// metadata is what it always was, and the codec's version for a later one. An event that no
// codec of its type reads is never written, as it could never be read back.
func TestEncodeRecordsTheSchemaVersion(t *testing.T) {
	t.Parallel()
	meta := eventstore.Metadata{CommandID: "k", Command: "stock"}
	codecs := append(shelfType().Events, aggregate.EventCodec[Counted]())
	encoded, err := aggregate.Encode(codecs, []aggregate.Event{Stocked{Count: 1, Shelf: "a"}, Counted{N: 1}}, meta)
	require.NoError(t, err)
	require.Equal(t, 3, encoded[0].Metadata.Schema)
	require.JSONEq(t, `{"count":1,"shelf":"a"}`, string(encoded[0].Data))
	require.Equal(t, meta, encoded[1].Metadata, "version 1: the metadata as given")

	_, err = aggregate.Encode(shelfType().Events, []aggregate.Event{Counted{N: 1}}, meta)
	require.ErrorContains(t, err, "encode Counted: no codec of its aggregate type reads it")
}

// Counted is an event that never changed shape.
type Counted struct {
	N int `json:"n"`
}

func (Counted) EventType() string { return "Counted" }

// A type with no upcasters decodes as it did before versions: what its JSON decoder allocates
// (encoding/json's semantics, package github.com/go-json-experiment/json/v1) and the event's
// boxing, nothing more.
func TestDecodingWithoutUpcastersAllocatesNothingMore(t *testing.T) {
	decoder := aggregate.NewDecoder([]aggregate.Codec{aggregate.EventCodec[Counted]()})
	e := eventstore.Event{StreamID: "counter-c", Type: "Counted", Data: json.RawMessage(`{"n":7}`)}
	var got aggregate.Event
	plain := testing.AllocsPerRun(1000, func() {
		var c Counted
		if err := jsonv1.Unmarshal(e.Data, &c); err != nil {
			t.Fatal(err)
		}
		got = c
	})
	decoded := testing.AllocsPerRun(1000, func() {
		var err error
		if got, err = decoder.Decode(e); err != nil {
			t.Fatal(err)
		}
	})
	require.Equal(t, Counted{N: 7}, got)
	require.Equal(t, plain, decoded, "allocations of a decode")
}

// Whatever the number of upcasters and the version an event was stored at, exactly the
// upcasters from that version on run, each once, in order; a version past the last is refused.
func TestUpcastersRunFromTheStoredVersionInOrder(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(t, "upcasters")
		upcasters := make([]aggregate.Upcaster, n)
		for i := range upcasters {
			from := i + 1
			upcasters[i] = func(in aggregate.StoredData) (json.RawMessage, error) {
				var v Traced
				if err := json.Unmarshal(in.Data, &v); err != nil {
					return nil, err
				}
				v.From = append(v.From, from)
				return json.Marshal(v)
			}
		}
		typ := aggregate.Type[int]{Name: "trace", Events: []aggregate.Codec{aggregate.EventCodec[Traced](upcasters...)}}
		version := rapid.IntRange(0, n+3).Draw(t, "stored at")
		got, err := typ.Decode(eventstore.Event{StreamID: "trace-x", Type: "Traced", Data: json.RawMessage(`{}`),
			Metadata: eventstore.Metadata{Schema: version}})
		if version > n+1 {
			var newer *aggregate.NewerSchemaError
			require.True(t, errors.As(err, &newer), "%v", err)
			require.Equal(t, aggregate.NewerSchemaError{Type: "Traced", Stored: version, Current: n + 1}, *newer)
			return
		}
		require.NoError(t, err)
		var want []int
		for from := max(version, 1); from <= n; from++ {
			want = append(want, from)
		}
		require.Equal(t, want, got.(Traced).From)
	})
}

// Traced records the versions it was upcast from.
type Traced struct {
	From []int `json:"from,omitempty"`
}

func (Traced) EventType() string { return "Traced" }
