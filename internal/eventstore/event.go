package eventstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Store is the log. Both implementations, Memory here and Postgres (package pgstore), satisfy
// it and pass the same contract tests (package testkit/storetest).
type Store interface {
	// Append writes events to the end of a stream whose current version is expectedVersion
	// (0 for a stream that must not exist yet). It returns the recorded events, or a
	// *ConflictError when the stream is at another version.
	Append(ctx context.Context, streamID string, expectedVersion int64, events []NewEvent) ([]Event, error)
	// AppendAll writes to several streams at once: every part at its expected version, or
	// none of them. When one part's stream has moved on, nothing is written and the
	// *ConflictError names that stream. It returns each part's recorded events, in the order
	// of parts. Parts must name distinct streams.
	AppendAll(ctx context.Context, parts []StreamAppend) ([][]Event, error)
	// ReadStream returns a stream's events with a version above afterVersion, in version order.
	// A stream that does not exist has no events; that is not an error.
	ReadStream(ctx context.Context, streamID string, afterVersion int64) ([]Event, error)
	// ReadAll returns at most limit events (all of them when limit <= 0) that come after the checkpoint in the log's global
	// order. Reading again from the last event's Checkpoint continues without a gap.
	ReadAll(ctx context.Context, after Checkpoint, limit int) ([]Event, error)
	// ReadTypes is ReadAll for a reader of some event types only: see TypeReader.
	TypeReader
	// Subscribe returns a channel that receives a value soon after events of one of types are
	// appended (of any type, when types is empty). Several appends may give one value. The
	// channel is closed when ctx ends.
	Subscribe(ctx context.Context, types ...string) <-chan struct{}
	// Ping reports whether the store can be reached.
	Ping(ctx context.Context) error

	// Head returns the Checkpoint of the last event in the log's global order, or the zero
	// Checkpoint when the log is empty.
	Head(ctx context.Context) (Checkpoint, error)
	// Locate returns the Checkpoint of the event at position, or an errs.NotFound error when
	// there is no such event (yet).
	Locate(ctx context.Context, position int64) (Checkpoint, error)
	// LastPosition returns the largest Position of any event in the log, 0 when it is empty.
	// Every position an Append returned is at most that (the append was recorded before it
	// returned), so a larger one is no event's, and never will be on this log until appends
	// reach it.
	LastPosition(ctx context.Context) (int64, error)
	// CountAfter counts the events of types (of any type, when types is empty) that come after
	// the checkpoint: how far behind a reader of those types at that checkpoint is.
	CountAfter(ctx context.Context, after Checkpoint, types ...string) (int64, error)
	// CountAfterUpTo is CountAfter that stops counting at atMost (when atMost > 0): what a
	// reader far behind has left costs its count no more than atMost events.
	CountAfterUpTo(ctx context.Context, after Checkpoint, atMost int64, types ...string) (int64, error)
	// Installation returns the id the log was given when it was set up: made once, kept with
	// the log, and different for every other log.
	Installation(ctx context.Context) (string, error)
}

// NewEvent is an event to append.
type NewEvent struct {
	Type     string
	Data     json.RawMessage
	Metadata Metadata
}

// StreamAppend is one stream's part of an AppendAll: the events to append to StreamID, whose
// current version must be ExpectedVersion.
type StreamAppend struct {
	StreamID        string
	ExpectedVersion int64
	Events          []NewEvent
}

// ValidateAppendAll checks AppendAll's arguments as every Store does before it writes
// anything: at least one part, each a valid append, no stream twice.
func ValidateAppendAll(parts []StreamAppend) error {
	if len(parts) == 0 {
		return fmt.Errorf("eventstore: AppendAll needs at least one part")
	}
	seen := make(map[string]bool, len(parts))
	for _, p := range parts {
		if err := ValidateAppend(p.StreamID, p.ExpectedVersion, p.Events); err != nil {
			return err
		}
		if seen[p.StreamID] {
			return fmt.Errorf("eventstore: AppendAll names the stream %q twice", p.StreamID)
		}
		seen[p.StreamID] = true
	}
	return nil
}

// Event is an event as recorded in the log.
type Event struct {
	StreamID string
	Version  int64
	// Position is unique across the log and grows with every insert. Positions can have gaps
	// (an aborted append uses some up), and they are not the order of ReadAll: see Checkpoint.
	Position int64
	// TransactionID identifies the transaction (or, in memory, the append) that wrote the event.
	TransactionID uint64
	Type          string
	Data          json.RawMessage
	Metadata      Metadata
	RecordedAt    time.Time
}

// Checkpoint returns the place of the event in the log's global order.
func (e Event) Checkpoint() Checkpoint {
	return Checkpoint{TransactionID: e.TransactionID, Position: e.Position}
}

// Metadata travels with every event. It records which command wrote the event, so that a repeated
// command can be recognised and answered from the log.
type Metadata struct {
	// CommandID identifies one command: the client's Idempotency-Key, or an id the service made.
	CommandID string `json:"commandId,omitempty"`
	// Command is the name of the command, such as "pay".
	Command string `json:"command,omitempty"`
	// Fingerprint is a hash of the command's payload.
	Fingerprint string `json:"fingerprint,omitempty"`
	// CorrelationID is the id of the request that ran the command.
	CorrelationID string `json:"correlationId,omitempty"`
	// TraceParent is the W3C traceparent of the command's span, when tracing is on: work done
	// later from the event (an email, a saga's command) links to it.
	TraceParent string `json:"traceparent,omitempty"`
	// Actor is who ran the command.
	Actor Actor `json:"actor,omitzero"`
	// Card is the library card a member showed at the kiosk that ran the command (the actor is
	// then the kiosk's terminal); "" for anything else.
	Card string `json:"card,omitempty"`
	// Schema is the schema version of the event's data: the version of its type's shape that
	// wrote it (package aggregate's upcasters read older ones as the current one). 0, left out,
	// is version 1, which every event written before versions were recorded is, so that the
	// metadata of a version-1 event is what it always was.
	Schema int `json:"schema,omitempty"`
}

// Actor is who ran a command: a signed-in person (their subject and issuer) in the role they
// acted in, the service's own background work (role "system"), or anyone while sign-in was off
// (role "open").
type Actor struct {
	Subject string `json:"sub,omitempty"`
	Role    string `json:"role,omitempty"`
	Issuer  string `json:"iss,omitempty"`
}

// Same reports whether two actors are one person (or both nobody in particular): the same
// subject from the same issuer, whatever role each acted in.
func (a Actor) Same(b Actor) bool { return a.Subject == b.Subject && a.Issuer == b.Issuer }

// Checkpoint is a place in the log's global order: (transaction, position). The zero Checkpoint
// is the start of the log.
type Checkpoint struct {
	TransactionID uint64 `json:"transactionId"`
	Position      int64  `json:"position"`
}

// Before reports whether c comes before other in the log's order.
func (c Checkpoint) Before(other Checkpoint) bool {
	if c.TransactionID != other.TransactionID {
		return c.TransactionID < other.TransactionID
	}
	return c.Position < other.Position
}

// ConflictError is returned by Append when the stream is not at the expected version.
type ConflictError struct {
	StreamID        string
	ExpectedVersion int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("eventstore: stream %q is no longer at version %d", e.StreamID, e.ExpectedVersion)
}

// ValidateAppend checks an append's arguments as every Store does before it writes anything: a
// stream id, an expected version that is not negative, and at least one event, each with a type
// and valid JSON data.
func ValidateAppend(streamID string, expectedVersion int64, events []NewEvent) error {
	switch {
	case streamID == "":
		return fmt.Errorf("eventstore: append needs a stream id")
	case expectedVersion < 0:
		return fmt.Errorf("eventstore: expected version %d is negative", expectedVersion)
	case len(events) == 0:
		return fmt.Errorf("eventstore: append to %q has no events", streamID)
	}
	for i, e := range events {
		if e.Type == "" {
			return fmt.Errorf("eventstore: event %d for %q has no type", i, streamID)
		}
		if !jsonv1.Valid(e.Data) {
			return fmt.Errorf("eventstore: event %d (%s) for %q has invalid JSON data", i, e.Type, streamID)
		}
	}
	return nil
}
