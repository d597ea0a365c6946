package catalogimport

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"

	"library/internal/validate"
)

// Record is a title with its copies, as the file gives it.
type Record struct {
	// Place is where the record is in its file: its number, counted from 1.
	Place int
	// ControlNumber is the record's identity in the system it comes from (MARC's 001, with
	// 003 before it and a colon when there is one); "" for none.
	ControlNumber string
	Title         string
	Authors       []string
	ISBN          string // as written; "" for none
	Year          int    // 0 for none
	Publisher     string
	Language      string // an ISO 639 code, as written; "" for none
	Subjects      []string
	Copies        []Copy
	// Warnings are what reading the record left out, for its Outcome.
	Warnings []Warning
}

// Copy is a copy of the record's title.
type Copy struct {
	Barcode      string
	MaterialType string // "" for the default
	CallNumber   string
	Price        int64 // cents; 0 for none
}

// TitleID is the id of the title that a record with this control number is: made from it, so
// that the same record is the same title in every import. A control number that is an id as
// it is keeps its characters; any other is hashed, with what of it is an id kept in front.
func TitleID(controlNumber string) string {
	const prefix = "m:"
	id := prefix + controlNumber
	if validate.IsID(id) {
		return id
	}
	var kept strings.Builder
	for _, r := range controlNumber {
		switch {
		case kept.Len() >= 40:
		case idChar(r):
			kept.WriteRune(r)
		default:
			kept.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(controlNumber))
	return prefix + kept.String() + "." + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:10]))
}

// CopyID is the id of the copy with this barcode (as books.Barcode keeps it): the same copy in
// every import.
func CopyID(barcode string) string { return "c:" + barcode }

// idChar reports whether r may be in an id (validate.IsID) after its first character.
func idChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._:@+-", r)
}
