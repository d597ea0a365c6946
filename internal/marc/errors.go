package marc

import (
	"errors"
	"fmt"
	"strings"
)

// Reason says why a record was refused. Its text is stable: an import's report prints it.
type Reason string

// The reasons a record is refused.
const (
	// ReasonBadLeader: the leader is too short, its record length or base address is not
	// digits, a record terminator comes before the end its record length gives, or its
	// position 9 is neither a (UTF-8) nor blank (MARC-8).
	ReasonBadLeader Reason = "bad_leader"
	// ReasonBadDirectory: the directory is not whole entries ended by a field terminator, an
	// entry is not a tag and digits, an entry points past the record, or the base address is
	// past the end of the record.
	ReasonBadDirectory Reason = "bad_directory"
	// ReasonNoFieldTerminator: a field does not end with the field terminator (0x1E).
	ReasonNoFieldTerminator Reason = "no_field_terminator"
	// ReasonNoRecordTerminator: the byte the record length points at, the record's last, is not
	// the record terminator (0x1D).
	ReasonNoRecordTerminator Reason = "no_record_terminator"
	// ReasonBadField: a field is not of its kind's shape: a data field without two indicators,
	// text before its first subfield, a subfield without a code, a terminator inside a field, a
	// tag that is not three letters or digits, a control field's tag on a data field (or the
	// other way round).
	ReasonBadField Reason = "bad_field"
	// ReasonInvalidUTF8: a record that says it is UTF-8 (leader/09 a) holds bytes that are not.
	ReasonInvalidUTF8 Reason = "invalid_utf8"
	// ReasonMARC8: a MARC-8 record (leader/09 blank) holds characters outside ASCII, which the
	// package does not read; the message says how to convert the file.
	ReasonMARC8 Reason = "marc8"
	// ReasonTruncated: the input ends in the middle of a record. Nothing follows it.
	ReasonTruncated Reason = "truncated"
	// ReasonBadXML: MARCXML that is not well-formed XML. The XML cannot be read past it, so
	// nothing follows it.
	ReasonBadXML Reason = "bad_xml"
	// ReasonTooLarge: a MARCXML record, or the text between two records, longer than
	// MaxXMLRecord bytes. The reader stops there, so nothing follows it.
	ReasonTooLarge Reason = "too_large"
)

// Marc8Conversion is the command that converts a MARC-8 file to UTF-8, which the package reads.
const Marc8Conversion = "yaz-marcdump -f MARC-8 -t UTF-8 -o marc -l 9=97 in.mrc > out.mrc"

// RecordError is a record refused: where it is in the input, what it is when that could be
// read, and why. Reader.Next returns it and reads the next record on the next call, unless it
// is the Last: the input cut short (ReasonTruncated), or MARCXML the decoder cannot read past
// (ReasonBadXML, ReasonTooLarge, and ReasonInvalidUTF8 in MARCXML), after which it returns
// io.EOF.
type RecordError struct {
	// Ordinal is the record's number in the input, from 1, counting refused records too.
	Ordinal int
	// Offset is where the record begins, in bytes from the start of the input (of the
	// decompressed input, for a gzip file).
	Offset int64
	// Line is the line of the record's start tag in MARCXML, and 0 in ISO 2709.
	Line int
	// ControlNumber is the record's 001 when it could be read, or "".
	ControlNumber string
	Reason        Reason
	// Message says what is wrong in words, for a person.
	Message string
	// Last is true when nothing after the record can be read: the next call returns io.EOF.
	Last bool
}

func (e *RecordError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "marc: record %d (", e.Ordinal)
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d, ", e.Line)
	}
	fmt.Fprintf(&b, "byte %d", e.Offset)
	if e.ControlNumber != "" {
		fmt.Fprintf(&b, ", 001 %q", e.ControlNumber)
	}
	fmt.Fprintf(&b, ") refused, %s: %s", e.Reason, e.Message)
	if e.Last {
		b.WriteString("; nothing after it is read")
	}
	return b.String()
}

// ReasonOf is the Reason of a RecordError in err's chain, or "" when there is none.
func ReasonOf(err error) Reason {
	var re *RecordError
	if errors.As(err, &re) {
		return re.Reason
	}
	return ""
}

// ErrUnwritable is in the chain of every error a writer returns for a record it cannot write;
// nothing of that record was written.
var ErrUnwritable = errors.New("marc: record cannot be written")

// unwritable is an error for a record a writer refuses.
func unwritable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnwritable, fmt.Sprintf(format, args...))
}

// refusal is why a record is refused, before the reader adds where it is.
type refusal struct {
	reason  Reason
	message string
}

func refuse(reason Reason, format string, args ...any) *refusal {
	return &refusal{reason: reason, message: fmt.Sprintf(format, args...)}
}
