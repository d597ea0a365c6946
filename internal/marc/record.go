package marc

import "slices"

// LeaderLength is the length of a record's leader, in bytes.
const LeaderLength = 24

// Record is one MARC record: its leader and its fields, in the order they came.
type Record struct {
	// Leader is the record's 24 characters of leader, as read. The writers work out positions
	// 0-4 (record length), 9 (a: UTF-8), 10-11 (22), 12-16 (base address) and 20-23 (4500)
	// afresh and keep the rest; an empty Leader is written as a book's ("nam a").
	Leader string
	Fields []Field
}

// Field is one field of a record: a control field (tag 001 to 009, or any tag that begins
// "00") holds Value; a data field holds two indicators and its subfields, in order, a code
// possibly repeated.
type Field struct {
	Tag       string
	Value     string // a control field's text
	Ind1      byte   // a data field's first indicator; ' ' for blank
	Ind2      byte   // a data field's second indicator; ' ' for blank
	Subfields []Subfield
}

// Subfield is one subfield of a data field: its code (a, b, 0, ...) and its text.
type Subfield struct {
	Code  byte
	Value string
}

// ControlField is a control field with that tag and text.
func ControlField(tag, value string) Field {
	return Field{Tag: tag, Value: value}
}

// DataField is a data field with that tag, indicators and subfields.
func DataField(tag string, ind1, ind2 byte, subfields ...Subfield) Field {
	return Field{Tag: tag, Ind1: ind1, Ind2: ind2, Subfields: subfields}
}

// IsControlTag reports whether a field with the tag is a control field: its tag begins "00".
func IsControlTag(tag string) bool {
	return len(tag) == 3 && tag[0] == '0' && tag[1] == '0'
}

// IsControl reports whether f is a control field.
func (f Field) IsControl() bool { return IsControlTag(f.Tag) }

// Subfield returns the text of f's first subfield with the code, or "" when it has none.
func (f Field) Subfield(code byte) string {
	for _, s := range f.Subfields {
		if s.Code == code {
			return s.Value
		}
	}
	return ""
}

// Values returns the texts of f's subfields with any of the codes, in the order of the field.
func (f Field) Values(codes ...byte) []string {
	var out []string
	for _, s := range f.Subfields {
		if slices.Contains(codes, s.Code) {
			out = append(out, s.Value)
		}
	}
	return out
}

// Field returns the record's first field with the tag, and whether it has one.
func (r Record) Field(tag string) (Field, bool) {
	for _, f := range r.Fields {
		if f.Tag == tag {
			return f, true
		}
	}
	return Field{}, false
}

// All returns the record's fields with any of the tags, in the order of the record.
func (r Record) All(tags ...string) []Field {
	var out []Field
	for _, f := range r.Fields {
		if slices.Contains(tags, f.Tag) {
			out = append(out, f)
		}
	}
	return out
}

// Control returns the text of the record's first control field with the tag, or "".
func (r Record) Control(tag string) string {
	if f, ok := r.Field(tag); ok && f.IsControl() {
		return f.Value
	}
	return ""
}

// ControlNumber is the record's control number: the text of its 001, or "".
func (r Record) ControlNumber() string { return r.Control("001") }
