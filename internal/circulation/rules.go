package circulation

import "library/internal/aggregate"

// RulesID is the aggregate id of the one table: its stream is circulation-rules.
const RulesID = "rules"

// Type is the rules' aggregate type. Its name prefixes the stream id ("circulation-rules"),
// and its events' names are stored data: never rename them. It has a Clone, so the table is
// kept in memory and a loan reads only what came after it; no Snapshot: the stream gets an
// event when a librarian changes the table, a few times a year, and is read whole in one
// round trip.
func Type() aggregate.Type[Rules] {
	return aggregate.Type[Rules]{
		Name:   "circulation",
		New:    NewRules,
		Apply:  Apply,
		Clone:  Clone,
		Weigh:  Weigh,
		Events: []aggregate.Codec{aggregate.EventCodec[RulesSet]()},
	}
}

// StreamID is the id of the rules' stream.
func StreamID() string { return Type().StreamID(RulesID) }

// Event is an event of the rules' stream; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// RulesSet records that the table is Rows from now on, whole: it replaces the table before it,
// so that the last RulesSet is the table, with no merging to get wrong on a replay. Rows is
// never null in the log ([] for the empty table). Stored data: add fields with omitempty, and
// never rename or remove one.
type RulesSet struct {
	Rows []Row `json:"rows"`
}

// EventType names the event in the log; never rename it. It says "Circulation" because event
// type names are read across aggregates (processors subscribe by name).
func (RulesSet) EventType() string { return "CirculationRulesSet" }

// Rules is the state of the rules' stream: the table, and its version.
type Rules struct {
	Table Table
	// Version counts the tables set: 0 before the first RulesSet, one more at each. It is the
	// version a client's If-Match names. It is the stream's version but for one thing: a keyed
	// command that changed nothing leaves a NothingChanged marker, which moves the stream's
	// version and not this one, so a table that did not change keeps its version, and Decide,
	// which never sees the stream's version, can compare this one.
	Version int64
}

// NewRules returns the state of a stream with no events: the empty table, under which every
// field is the environment's (Defaults).
func NewRules() Rules { return Rules{} }

// Apply returns the state after e.
func Apply(s Rules, e Event) Rules {
	if e, ok := e.(RulesSet); ok {
		s.Table = Table{Rows: cloneRows(e.Rows)}
		s.Version++
	}
	return s
}

// Clone returns s: Apply replaces the table's rows and never writes into them, so a copy of
// the struct is a state Apply can change without changing s.
func Clone(s Rules) Rules { return s }

// rowBytes is about what a row with every field set takes in memory.
const rowBytes = 256

// Weigh estimates the bytes s takes in memory, for the cache's bound.
func Weigh(s Rules) int { return 64 + rowBytes*len(s.Table.Rows) }

// SetRules asks that the table be Rows, whole. Its JSON is the payload's fingerprint and
// DecodeTable's shape: {"rows": [...]}.
type SetRules struct {
	Rows []Row `json:"rows"`
}

// Validate refuses a table that is not valid (Table.Validate), before anything is loaded.
func (c SetRules) Validate() error { return Table(c).Validate() }

// Decide records the table; the same table again, row for row in the same order, records
// nothing, and so does the empty table on a stream that never had one (it resolves to the
// defaults either way). A table that is not valid is refused.
func (c SetRules) Decide(s Rules) ([]Event, error) {
	t := Table(c)
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if t.Equal(s.Table) {
		return nil, nil
	}
	rows := cloneRows(c.Rows)
	if rows == nil {
		rows = []Row{}
	}
	return []Event{RulesSet{Rows: rows}}, nil
}
