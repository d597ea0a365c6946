package aggregate

import (
	"context"
	"fmt"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"library/internal/eventstore"
)

// Event is a domain event. EventType names it in the log, so the name must never change.
//
// It is an alias of an unnamed interface so that domain packages can declare the very same
// type (type Event = interface{ EventType() string }) without importing this package.
type Event = interface{ EventType() string }

// NothingChanged is the type of the event that records a command which carried a key and
// decided nothing. It holds no data, changes no state, and is never listed in a Result; its
// metadata holds the command id, so that a retry is answered from the log like any other.
// Readers of the log other than aggregates skip it. Stored data: never rename.
const NothingChanged = "NothingChanged"

// Codec decodes the stored data of one event type, and upcasts it first when it was stored in
// an older shape (Upcaster): events are written at the codec's Schema version, and read from
// any version up to it.
type Codec struct {
	typ   string
	codec codec
	// upcasters[i] maps the type's schema version i+1 to version i+2.
	upcasters []Upcaster
}

// codec decodes an event type's data.
type codec interface {
	decode(data []byte) (Event, error)
}

// EventCodec returns the Codec of event type E, decoded from JSON. Without upcasters it
// allocates nothing: the readers of the log that make their aggregate types as they read make
// them for every event.
//
// upcasters are the changes of E's shape since its first, in order: the first maps version 1
// (every event stored before versions were recorded) to version 2, the next version 2 to 3, and
// so on, and E is the shape of the last version, 1 + len(upcasters), which new events are
// written at. An event stored at any version up to it is upcast to it before it is decoded;
// one stored at a later version is refused (NewerSchemaError). An upcaster is never removed:
// the log keeps the events of every version.
func EventCodec[E Event](upcasters ...Upcaster) Codec {
	var zero E
	for i, u := range upcasters {
		if u == nil {
			panic(fmt.Sprintf("aggregate: the upcaster of %s from schema version %d is nil", zero.EventType(), i+1))
		}
	}
	return Codec{typ: zero.EventType(), codec: jsonCodec[E]{}, upcasters: upcasters}
}

// jsonCodec decodes events of type E from JSON. It is empty, so that a Codec holds it without
// an allocation, which a closure of a generic function's would take.
type jsonCodec[E Event] struct{}

func (jsonCodec[E]) decode(data []byte) (Event, error) {
	var e E
	if err := jsonv1.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	return e, nil
}

// Type describes an aggregate type: the prefix of its streams, its empty state, how an event
// changes the state, and the events it can read back.
type Type[S any] struct {
	// Name prefixes stream ids: an aggregate with id "alice" of type "account" lives in the
	// stream "account-alice". Stored data: never rename.
	Name string
	// New returns the state of an aggregate with no events.
	New func() S
	// Apply returns the state after an event. It may modify and return the state it is given.
	Apply func(S, Event) S
	// Events lists the codecs of every event type the aggregate has ever written, each with
	// the upcasters that read its older shapes (EventCodec). Every reader of the type's events
	// decodes through them: loads (from the start, a snapshot or a kept aggregate), replays,
	// Decode and Present.
	Events []Codec
	// Clone returns a copy of a state that Apply can change without changing the original:
	// maps and slices that Apply writes to must be copied. With Clone set, the repository keeps
	// recent aggregates in memory between commands; without it, every command reads its stream
	// whole.
	Clone func(S) S
	// Weigh estimates the bytes a state takes in memory, for the cache's bound. Default
	// 256 bytes (package cache).
	Weigh func(S) int
	// Snapshot, when set, keeps a snapshot of a stream every Options.SnapshotEvery events, so
	// that a load reads the snapshot and the events after it. Nil: streams are read whole.
	Snapshot *SnapshotCodec[S]
	// Personal, when set, says whether a state holds personal values: its snapshots are then
	// sealed with the owner's data key (Options.Cipher), and not written without one.
	Personal func(S) bool
}

// StreamID is the id of the stream that holds the aggregate with the given id.
func (t Type[S]) StreamID(id string) string { return t.Name + "-" + id }

// Command is one request to change an aggregate.
type Command[S any] struct {
	// Name identifies the kind of command, such as "pay". Stored data: never rename.
	Name string
	// Origin carries the command id (empty: a random one is used) and the correlation id.
	Origin Origin
	// Payload is what the client asked for. Its JSON encoding is fingerprinted, so that a
	// command id reused with another payload is recognised.
	Payload any
	// Validate, when set, checks the command before anything is loaded, so that bad input is
	// refused without I/O, even while the store is down, and before its key is looked at.
	Validate func() error
	// Decide returns the events that the command records given the current state, none when
	// there is nothing to do, or an error (usually an *errs.Error) to refuse it.
	Decide func(state S) ([]Event, error)
	// Forget makes the command erase its aggregate's owner: the append of its events deletes
	// the owner's data key in the same transaction, so their sealed values can't be read again.
	Forget bool
	// Also, when set, makes a command that decided events write to a second stream too (or
	// several: Also.More), in the same atomic append: a rule that spans two aggregates (a loan
	// and the member's account) is then kept by optimistic concurrency on both streams. Also is
	// given the decided events and returns the other stream's part, as read from the log at
	// that moment, or an error that refuses the command. When the other stream has moved on by
	// the time of the append, nothing is written and the command is decided again, Also asked
	// again. A command with Also is decided and appended in a group of its own.
	Also func(ctx context.Context, decided []Event) (Also, error)
	// Prepare, when set, reads what Decide needs from another aggregate (a title's queue, for
	// a copy that comes back), given the state Decide will be given, before each decision: the
	// first, and each one after a conflict, so that no decision is appended on what another
	// stream was. Decide reads what Prepare kept; Also writes to that stream at the version
	// Prepare read, so that, should it have moved on meanwhile, the command is decided again.
	// An error refuses the command. A command with Prepare is decided and appended in a group
	// of its own.
	Prepare func(ctx context.Context, state S) error
}

// Also is a second stream's part of a command's append: Events go to StreamID, whose version
// must still be ExpectedVersion. They carry the command's metadata but not its id, so that the
// other stream's window of keys is not the command's to fill: a repeat is answered from the
// command's own stream.
type Also struct {
	StreamID        string
	ExpectedVersion int64
	Events          []Event
	// Codecs are the codecs of the other stream's aggregate type (its Type's Events): they say
	// the schema version each of Events is written at. An event none of them reads is refused.
	Codecs []Codec
	// More are the parts of further streams in the same append, each kept as this one is (and
	// its own More with it), for a rule that spans more than two aggregates: a title whose ISBN
	// changes takes the new value's reservation and gives up the old one's. A part without
	// events is left out; no stream may have two parts.
	More []Also
}

// Result is what a command did: the stream's version and position after it, and the events it
// recorded.
type Result struct {
	StreamID string `json:"streamId"`
	// Version is the stream's version after the command.
	Version int64 `json:"version"`
	// Position is the global position of the last event the command wrote, or of the stream's
	// last event when it wrote none.
	Position int64           `json:"position"`
	Events   []RecordedEvent `json:"events"`
	// Replayed is true when this is the stored answer to an earlier run of the same command.
	Replayed bool `json:"-"`
}

// Recorded reports whether the command recorded events.
func (r Result) Recorded() bool { return len(r.Events) > 0 }

// RecordedEvent is an event in a Result.
type RecordedEvent struct {
	Type       string    `json:"type"`
	Version    int64     `json:"version"`
	Position   int64     `json:"position"`
	RecordedAt time.Time `json:"recordedAt"`
	Data       Event     `json:"data"`
}

// Decoder decodes stored events of one aggregate type, by their type's codec.
type Decoder map[string]Codec

// NewDecoder returns the Decoder of the given codecs (a Type's Events).
func NewDecoder(codecs []Codec) Decoder {
	d := make(Decoder, len(codecs))
	for _, c := range codecs {
		d[c.typ] = c
	}
	return d
}

// Decode decodes a stored event, upcast from the schema version it was stored at. An event
// of a newer version than its codec's is an errs.Unavailable error (NewerSchemaError).
func (d Decoder) Decode(e eventstore.Event) (Event, error) {
	c, ok := d[e.Type]
	if !ok {
		return nil, fmt.Errorf("aggregate: unknown event type %q", e.Type)
	}
	event, err := c.decodeEvent(e)
	if err != nil {
		return nil, fmt.Errorf("aggregate: decode %s: %w", e.Type, err)
	}
	return event, nil
}

// Origin says where a command comes from: its command id (the client's Idempotency-Key, or ""
// for none) and the id of the request that carries it.
type Origin struct {
	CommandID     string
	CorrelationID string
	// Actor is who runs the command; a command id answers only the actor who first used it.
	Actor eventstore.Actor
	// Card is the library card shown at the kiosk that runs the command, for the log's metadata.
	Card string
}

// Decode decodes a stored event of type t, as its codecs read it, upcast from the schema
// version it was stored at: for readers of the log other than the repository (reactions), so
// that an aggregate's events are decoded in one place. Personal values stay as they are stored
// (sealed); a NothingChanged marker decodes to nil. An event of a newer version than its
// codec's is an errs.Unavailable error (NewerSchemaError): a processor given it pauses.
func (t Type[S]) Decode(e eventstore.Event) (Event, error) {
	if e.Type == NothingChanged {
		return nil, nil
	}
	for _, c := range t.Events {
		if c.typ == e.Type {
			return c.decodeEvent(e)
		}
	}
	return nil, fmt.Errorf("aggregate: %s has no event type %q", t.Name, e.Type)
}

// EventTypes are the names of every event type t has ever written (its Events), for a reader
// of every event of t's (processor.Processor.Types).
func (t Type[S]) EventTypes() []string {
	types := make([]string, len(t.Events))
	for i, c := range t.Events {
		types[i] = c.typ
	}
	return types
}

// Owns reports whether a stored event is of one of t's streams.
func (t Type[S]) Owns(e eventstore.Event) bool {
	return len(e.StreamID) > len(t.Name) && e.StreamID[:len(t.Name)+1] == t.Name+"-"
}

// ID is the aggregate id of a stream of t's (the stream id without the type's prefix).
func (t Type[S]) ID(streamID string) string { return streamID[min(len(streamID), len(t.Name)+1):] }

// SnapshotCodec lets a repository keep snapshots of its type's streams (package snapshots): the
// folded state and the window of recent command ids, every Options.SnapshotEvery events, so
// that a stream is loaded from its snapshot and the events after it instead of from its first.
// A snapshot is a state, not events: upcasters never touch it, and its Version is its own.
type SnapshotCodec[S any] struct {
	// Version names the encoding of the state. Bump it whenever the state changes shape, and
	// whenever an upcaster makes Apply fold another state from the same stored events:
	// snapshots of another version are then ignored, and written again, never misread.
	Version int
	Encode  func(S) ([]byte, error)
	Decode  func([]byte) (S, error)
}
