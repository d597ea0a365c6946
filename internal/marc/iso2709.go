package marc

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// The limits of ISO 2709 as MARC 21 lays it out: a record's length and a field's start are
// five digits, a field's length four.
const (
	MaxRecordLength = 99999
	maxFieldLength  = 9999
	entryLength     = 12 // a directory entry: tag (3), field length (4), field start (5)
	// minRecordLength is a leader, an empty directory's terminator and the record terminator.
	minRecordLength = LeaderLength + 2
)

// defaultLeader is written for a record without one: a book ("nam"), UTF-8.
const defaultLeader = "00000nam a2200000   4500"

// MarshalISO2709 returns r as one ISO 2709 record in UTF-8, its leader's lengths, base address,
// encoding (a) and entry map (4500) worked out afresh. A record the format cannot hold (a field
// over 9999 bytes, a record over 99999, a tag, indicator, code or text the format cannot
// carry) is an error in ErrUnwritable's chain.
func MarshalISO2709(r Record) ([]byte, error) {
	leader, err := layout(r)
	if err != nil {
		return nil, err
	}
	var dir, data bytes.Buffer
	for _, f := range r.Fields {
		start := data.Len()
		writeFieldData(&data, f)
		fmt.Fprintf(&dir, "%s%04d%05d", f.Tag, data.Len()-start, start)
	}
	out := make([]byte, 0, LeaderLength+dir.Len()+1+data.Len()+1)
	out = append(out, leader...)
	out = append(out, dir.Bytes()...)
	out = append(out, fieldTerminator)
	out = append(out, data.Bytes()...)
	return append(out, recordTerminator), nil
}

// layout checks that r can be written and returns its leader as ISO 2709 writes it.
func layout(r Record) (string, error) {
	leader := r.Leader
	if leader == "" {
		leader = defaultLeader
	}
	if !validLeader(leader) {
		return "", unwritable("leader %q is not 24 printable ASCII characters", leader)
	}
	dataLen := 0
	for _, f := range r.Fields {
		if bad := checkField(f); bad != nil {
			return "", unwritable("%s", bad.message)
		}
		n := fieldDataLength(f)
		if n > maxFieldLength {
			return "", unwritable("field %s is %d bytes, over ISO 2709's %d", f.Tag, n, maxFieldLength)
		}
		dataLen += n
	}
	base := LeaderLength + entryLength*len(r.Fields) + 1
	total := base + dataLen + 1
	if total > MaxRecordLength {
		return "", unwritable("the record is %d bytes, over ISO 2709's %d", total, MaxRecordLength)
	}
	b := []byte(leader)
	copy(b[0:5], fmt.Sprintf("%05d", total))
	b[9] = 'a'
	b[10], b[11] = '2', '2'
	copy(b[12:17], fmt.Sprintf("%05d", base))
	copy(b[20:24], "4500")
	return string(b), nil
}

// fieldDataLength is the length of f in the data area, its terminator included.
func fieldDataLength(f Field) int {
	if f.IsControl() {
		return len(f.Value) + 1
	}
	n := 2 + 1
	for _, s := range f.Subfields {
		n += 2 + len(s.Value)
	}
	return n
}

func writeFieldData(b *bytes.Buffer, f Field) {
	if f.IsControl() {
		b.WriteString(f.Value)
	} else {
		b.WriteByte(f.Ind1)
		b.WriteByte(f.Ind2)
		for _, s := range f.Subfields {
			b.WriteByte(subfieldDelimiter)
			b.WriteByte(s.Code)
			b.WriteString(s.Value)
		}
	}
	b.WriteByte(fieldTerminator)
}

// parseISO2709 reads one record whose framing the reader has checked: b is at least
// minRecordLength bytes, begins with its length in five digits and ends with the record
// terminator.
func parseISO2709(b []byte) (Record, *refusal) {
	leader := b[:LeaderLength]
	if !validLeader(string(leader)) {
		return Record{}, refuse(ReasonBadLeader, "the leader %q is not 24 printable ASCII characters", leader)
	}
	base, ok := digits(leader[12:17])
	if !ok {
		return Record{}, refuse(ReasonBadLeader, "the base address (leader/12-16) %q is not digits", leader[12:17])
	}
	utf8Text := leader[9] == 'a'
	if !utf8Text && leader[9] != ' ' {
		return Record{}, refuse(ReasonBadLeader, "the character coding (leader/09) %q is neither a (UTF-8) nor blank (MARC-8)", leader[9])
	}
	if base >= len(b) || base < LeaderLength+1 {
		return Record{}, refuse(ReasonBadDirectory, "the base address %d is outside the record's %d bytes", base, len(b))
	}
	if b[base-1] != fieldTerminator {
		return Record{}, refuse(ReasonBadDirectory, "the directory does not end with a field terminator just before the base address %d", base)
	}
	directory := b[LeaderLength : base-1]
	if len(directory)%entryLength != 0 {
		return Record{}, refuse(ReasonBadDirectory, "the directory is %d bytes, not whole entries of %d", len(directory), entryLength)
	}
	data := b[base : len(b)-1]
	rec := Record{Leader: string(leader), Fields: make([]Field, 0, len(directory)/entryLength)}
	for e := directory; len(e) > 0; e = e[entryLength:] {
		f, bad := parseEntry(e[:entryLength], data, utf8Text)
		if bad != nil {
			return Record{}, bad
		}
		rec.Fields = append(rec.Fields, f)
	}
	return rec, nil
}

// parseEntry reads the field a directory entry points at in the data area.
func parseEntry(entry, data []byte, utf8Text bool) (Field, *refusal) {
	tag := string(entry[:3])
	length, okLength := digits(entry[3:7])
	start, okStart := digits(entry[7:12])
	switch {
	case !validTag(tag):
		return Field{}, refuse(ReasonBadDirectory, "directory entry %q: the tag is not three letters or digits", entry)
	case !okLength || !okStart:
		return Field{}, refuse(ReasonBadDirectory, "directory entry %q: the length or start is not digits", entry)
	case start+length > len(data):
		return Field{}, refuse(ReasonBadDirectory, "field %s (%d bytes from %d) ends past the data, which is %d bytes", tag, length, start, len(data))
	case length == 0 || data[start+length-1] != fieldTerminator:
		return Field{}, refuse(ReasonNoFieldTerminator, "field %s (%d bytes from %d) does not end with a field terminator", tag, length, start)
	}
	content := data[start : start+length-1]
	if bad := checkEncoding(tag, content, utf8Text); bad != nil {
		return Field{}, bad
	}
	if IsControlTag(tag) {
		f := Field{Tag: tag, Value: string(content)}
		return f, checkText(tag, f.Value)
	}
	return parseDataField(tag, content)
}

// checkEncoding refuses text that is not UTF-8 in a UTF-8 record, and MARC-8 text that is not
// plain ASCII: a byte over 0x7F, or an escape (0x1B), which switches to another character set.
func checkEncoding(tag string, content []byte, utf8Text bool) *refusal {
	if utf8Text {
		if !utf8.Valid(content) {
			return refuse(ReasonInvalidUTF8, "field %s is not UTF-8, though leader/09 says the record is", tag)
		}
		return nil
	}
	for _, c := range content {
		if c >= 0x80 || c == 0x1B {
			return refuse(ReasonMARC8, "field %s holds MARC-8 characters outside ASCII, which are not read: convert the file to UTF-8 first, with %s", tag, Marc8Conversion)
		}
	}
	return nil
}

func parseDataField(tag string, content []byte) (Field, *refusal) {
	if len(content) < 2 {
		return Field{}, refuse(ReasonBadField, "data field %s has no indicators", tag)
	}
	f := Field{Tag: tag, Ind1: content[0], Ind2: content[1]}
	rest := content[2:]
	if len(rest) > 0 && rest[0] != subfieldDelimiter {
		return Field{}, refuse(ReasonBadField, "data field %s has text before its first subfield", tag)
	}
	for len(rest) > 0 {
		rest = rest[1:] // the delimiter
		end := bytes.IndexByte(rest, subfieldDelimiter)
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return Field{}, refuse(ReasonBadField, "data field %s has a subfield without a code", tag)
		}
		f.Subfields = append(f.Subfields, Subfield{Code: rest[0], Value: string(rest[1:end])})
		rest = rest[end:]
	}
	return f, checkField(f)
}

// digits is the number b's ASCII digits write, and whether b is all digits.
func digits(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// controlNumberOf is the 001 of a record that may be refused or cut short, when its directory
// can be read that far: the control number a RecordError names.
func controlNumberOf(b []byte) string {
	if len(b) < LeaderLength {
		return ""
	}
	base, ok := digits(b[12:17])
	if !ok || base > len(b) {
		return ""
	}
	for e := LeaderLength; e+entryLength <= base-1; e += entryLength {
		if string(b[e:e+3]) != "001" {
			continue
		}
		length, okLength := digits(b[e+3 : e+7])
		start, okStart := digits(b[e+7 : e+12])
		if !okLength || !okStart || length == 0 || base+start+length-1 > len(b) {
			return ""
		}
		v := b[base+start : base+start+length-1]
		if !printableASCII(v) {
			return ""
		}
		return string(v)
	}
	return ""
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if !validIndicator(c) {
			return false
		}
	}
	return true
}
