package marc

import (
	"strings"
	"unicode/utf8"
)

// The separators of ISO 2709.
const (
	recordTerminator  = 0x1D
	fieldTerminator   = 0x1E
	subfieldDelimiter = 0x1F
)

// separators are the bytes that no text of a record may hold, since ISO 2709 ends its parts
// with them.
const separators = "\x1d\x1e\x1f"

// validTag reports whether tag is three ASCII letters or digits, as MARC 21's are ("245") and
// local ones may be ("FMT").
func validTag(tag string) bool {
	if len(tag) != 3 {
		return false
	}
	for i := range 3 {
		if !isAlnum(tag[i]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// validIndicator reports whether c may be an indicator: a printable ASCII character, blank
// included.
func validIndicator(c byte) bool { return 0x20 <= c && c <= 0x7E }

// validCode reports whether c may be a subfield code: a printable ASCII character other than
// blank.
func validCode(c byte) bool { return 0x21 <= c && c <= 0x7E }

// validLeader reports whether s is a leader's 24 printable ASCII characters.
func validLeader(s string) bool {
	if len(s) != LeaderLength {
		return false
	}
	for i := range len(s) {
		if !validIndicator(s[i]) {
			return false
		}
	}
	return true
}

// checkField says what is wrong with f as a field of a record, or nil: the rules both formats
// share, which the readers enforce on what they read and the writers on what they write.
func checkField(f Field) *refusal {
	if !validTag(f.Tag) {
		return refuse(ReasonBadField, "tag %q is not three letters or digits", f.Tag)
	}
	if f.IsControl() {
		if len(f.Subfields) > 0 || f.Ind1 != 0 || f.Ind2 != 0 {
			return refuse(ReasonBadField, "control field %s has indicators or subfields", f.Tag)
		}
		return checkText(f.Tag, f.Value)
	}
	if f.Value != "" {
		return refuse(ReasonBadField, "data field %s has the text of a control field", f.Tag)
	}
	if !validIndicator(f.Ind1) || !validIndicator(f.Ind2) {
		return refuse(ReasonBadField, "field %s: indicators %q and %q are not printable ASCII characters", f.Tag, f.Ind1, f.Ind2)
	}
	for _, s := range f.Subfields {
		if !validCode(s.Code) {
			return refuse(ReasonBadField, "field %s: subfield code %q is not a printable ASCII character", f.Tag, s.Code)
		}
		if r := checkText(f.Tag, s.Value); r != nil {
			return r
		}
	}
	return nil
}

// checkText says what is wrong with a field's text, or nil.
func checkText(tag, s string) *refusal {
	if !utf8.ValidString(s) {
		return refuse(ReasonInvalidUTF8, "field %s is not UTF-8", tag)
	}
	if strings.ContainsAny(s, separators) {
		return refuse(ReasonBadField, "field %s holds a terminator or delimiter (0x1D, 0x1E or 0x1F) in its text", tag)
	}
	return nil
}
