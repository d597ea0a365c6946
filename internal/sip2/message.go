package sip2

import "slices"

// Message is one SIP message: command identifier, fixed fields, variable fields, and error
// detection.
type Message struct {
	Code   string   // two characters: "93", "11", "12", ...
	Fixed  []string // the fixed-length fields in the order of the specification, each exactly its length
	Fields []Field  // variable fields in the order received or to send; an id may repeat (AS, AU, BM, ...)
	// Seq is the AY sequence number (0-9) when HasSeq; the checksum (AZ) is checked on parse and
	// written on encode when HasSeq.
	Seq    int
	HasSeq bool
	// ChecksumOnly marks a message that carries AZ without AY, as the resend messages are often
	// sent ("96AZFEF6"): Parse checks the checksum and sets it; Encode writes AZ alone when it is
	// set and HasSeq is not.
	ChecksumOnly bool
}

// Field is one variable-length field.
type Field struct{ ID, Value string } // ID is two characters, e.g. "AA"

// Field returns the value of the first field with the id, and whether there is one.
func (m Message) Field(id string) (string, bool) {
	for _, f := range m.Fields {
		if f.ID == id {
			return f.Value, true
		}
	}
	return "", false
}

// Value returns the value of the first field with the id, or "".
func (m Message) Value(id string) string {
	v, _ := m.Field(id)
	return v
}

// All returns the values of every field with the id, in order.
func (m Message) All(id string) []string {
	var out []string
	for _, f := range m.Fields {
		if f.ID == id {
			out = append(out, f.Value)
		}
	}
	return out
}

// FixedField returns the fixed field of that name in the specification ("transaction date",
// "no block", ...), or "" when the message's code has no such field or the message lacks it.
func (m Message) FixedField(name string) string {
	s, ok := specs[m.Code]
	if !ok {
		return ""
	}
	for i, f := range s.Fixed {
		if f.Name == name && i < len(m.Fixed) {
			return m.Fixed[i]
		}
	}
	return ""
}

// Missing returns the variable field ids the specification requires of the message that it does
// not carry, in the specification's order. Parse accepts such messages (kiosks often leave out
// a field they have no value for); the caller decides what a missing field means.
func (m Message) Missing() []string {
	var out []string
	for _, id := range specs[m.Code].Required {
		if _, ok := m.Field(id); !ok {
			out = append(out, id)
		}
	}
	return out
}

// Add returns m with a field appended.
func (m Message) Add(id, value string) Message {
	m.Fields = append(slices.Clip(m.Fields), Field{ID: id, Value: value})
	return m
}
