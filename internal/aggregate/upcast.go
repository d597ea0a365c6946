package aggregate

import (
	"encoding/json"
	"fmt"

	"library/internal/errs"
	"library/internal/eventstore"
)

// Upcaster maps the stored data of an event from one schema version of its type to the next:
// it is given the data in version N's shape and returns it in version N+1's. It is a pure
// function of what it is given: it must not read the log or the clock, so that an event reads
// the same every time it is read, in every process.
//
// The data it is given is the data as stored: personal values sealed (PersonalEvent), bound to
// the event's stream and version, so an upcaster may move one to another field but never read
// it, nor make it out of anything else.
type Upcaster func(StoredData) (json.RawMessage, error)

// StoredData is what an Upcaster is given: an event's data, and the stream that holds it,
// which an older shape may have left implicit (whose hold it is) where a newer one says it in
// the data. It may gain fields as upcasters need them; each is the stored event's own.
type StoredData struct {
	// StreamID is the id of the stream that holds the event (Type.ID gives the aggregate's).
	StreamID string
	// Data is the event's data in the shape of the version the Upcaster reads.
	Data json.RawMessage
}

// NewerSchemaError is the error of reading an event stored at a schema version newer than
// its type's current one: it was written by a newer release of the service (during a rolling
// upgrade, or before a rollback), and this one can't read it without misreading it. It comes
// wrapped in an *errs.Error of code errs.Unavailable: a command answers 503 and is sent again
// (maybe to a replica of the newer release), and a processor pauses until a replica of the
// newer release holds its lease, parking nothing.
type NewerSchemaError struct {
	Type string
	// Stored is the schema version the event was written at; Current is the newest this
	// release reads.
	Stored, Current int
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("aggregate: %s stored at schema version %d; this release reads up to version %d", e.Type, e.Stored, e.Current)
}

// Schema is the schema version the codec's events are written at: 1 and one more for each of
// its upcasters.
func (c Codec) Schema() int { return len(c.upcasters) + 1 }

// decodeStored decodes the data of an event stored at schema version stored (0 and 1 alike are
// version 1): upcast to the codec's version first, then decoded. With no upcasters, and an
// event of version 1, it is the codec's decoding alone, and allocates nothing more.
func (c Codec) decodeStored(streamID string, stored int, data json.RawMessage) (Event, error) {
	stored = max(stored, 1)
	if current := c.Schema(); stored > current {
		newer := &NewerSchemaError{Type: c.typ, Stored: stored, Current: current}
		return nil, errs.Wrap(errs.Unavailable, newer,
			"a %s event was written by a newer release of the service, which this replica can't read; try again", c.typ)
	}
	for i, upcast := range c.upcasters[stored-1:] {
		from := stored + i
		up, err := upcast(StoredData{StreamID: streamID, Data: data})
		if err != nil {
			return nil, fmt.Errorf("aggregate: upcast %s from schema version %d to %d: %w", c.typ, from, from+1, err)
		}
		data = up
	}
	return c.codec.decode(data)
}

// decodeEvent decodes a stored event of the codec's type.
func (c Codec) decodeEvent(e eventstore.Event) (Event, error) {
	return c.decodeStored(e.StreamID, e.Metadata.Schema, e.Data)
}

// Encode encodes events as JSON, each with meta and the schema version of its type, as codecs
// (its aggregate type's Events) say: an event of a type with no codec among them is refused, as
// it could not be read back.
func Encode(codecs []Codec, events []Event, meta eventstore.Metadata) ([]eventstore.NewEvent, error) {
	out := make([]eventstore.NewEvent, len(events))
	for i, e := range events {
		typ := e.EventType()
		schema, ok := schemaOf(codecs, typ)
		if !ok {
			return nil, fmt.Errorf("aggregate: encode %s: no codec of its aggregate type reads it", typ)
		}
		data, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("aggregate: encode %s: %w", typ, err)
		}
		out[i] = eventstore.NewEvent{Type: typ, Data: data, Metadata: meta}
		if schema > 1 { // version 1 is recorded as none, as it always was
			out[i].Metadata.Schema = schema
		}
	}
	return out, nil
}

// schemaOf is the schema version of events of type typ, as the codec among codecs that reads
// them says, and whether one does.
func schemaOf(codecs []Codec, typ string) (int, bool) {
	for _, c := range codecs {
		if c.typ == typ {
			return c.Schema(), true
		}
	}
	return 0, false
}
