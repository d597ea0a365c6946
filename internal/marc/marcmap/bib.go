package marcmap

import (
	"fmt"

	"library/internal/marc"
)

// Bib is a record as a title with copies: what the catalogue keeps of it.
type Bib struct {
	ControlNumber string // the 001, or ""
	Agency        string // the 003, whose control number the 001 is, or ""
	Title         string
	Authors       []string // personal and corporate names, in the record's order, each once
	ISBNs         []string // ISBN-13s, each once, those with a wrong check digit left out
	Publisher     string
	Year          int // 0 when the record gives none
	Language      string
	Subjects      []string
	Copies        []Copy
	// Warnings are what was left out, and why: the title is kept.
	Warnings []Warning
}

// Copy is one copy of the title: an item of the record's holdings.
type Copy struct {
	Barcode      string
	MaterialType string // lower case, as the circulation rules name material types; "" when not given
	CallNumber   string
	PriceCents   int64 // the price in hundredths of its unit; 0 when not given
}

// Identity names the record across files: "003:001" (OCoLC:ocm00012345) when it has a 003,
// the 001 alone when it has none, and "" without a 001.
func (b Bib) Identity() string {
	switch {
	case b.ControlNumber == "":
		return ""
	case b.Agency == "":
		return b.ControlNumber
	}
	return b.Agency + ":" + b.ControlNumber
}

// ISBN is the record's first ISBN-13, or "".
func (b Bib) ISBN() string {
	if len(b.ISBNs) == 0 {
		return ""
	}
	return b.ISBNs[0]
}

// Code names a refusal or a warning. Its text is stable: an import's report prints it.
type Code string

// Why a record is refused: it is no title.
const (
	// No245: the record has no title statement (245), or one with no title in $a or $b.
	No245 Code = "no245"
)

// What a warning is about: the title is kept, without what the warning names.
const (
	// No001: the record has no control number (001), so nothing names it across files.
	No001 Code = "no001"
	// BadISBN: an 020 $a is not an ISBN, or its check digit does not match; it is left out.
	BadISBN Code = "bad_isbn"
	// NoBarcode: an item has no barcode; the copy is left out.
	NoBarcode Code = "no_barcode"
	// DuplicateBarcode: an item's barcode is another copy's of the same record; it is left out.
	DuplicateBarcode Code = "duplicate_barcode"
	// BadPrice: an item's price is not an amount; the copy is kept without a price.
	BadPrice Code = "bad_price"
)

// Warning is something of the record left out of the title, and why.
type Warning struct {
	Code    Code
	Tag     string // the field it is about
	Message string
}

// Refusal is a record that is no title. Map returns it as its error.
type Refusal struct {
	Code    Code
	Message string
}

func (r *Refusal) Error() string { return fmt.Sprintf("marcmap: %s: %s", r.Code, r.Message) }

// Map reads a record as a title with copies, its items found as holdings says (the zero
// Holdings: Koha's 952, and 852 with 876). It returns a *Refusal when the record is no title.
func Map(r marc.Record, holdings Holdings) (Bib, error) {
	title, refusal := titleOf(r)
	if refusal != nil {
		return Bib{}, refusal
	}
	b := Bib{ControlNumber: r.ControlNumber(), Agency: r.Control("003"), Title: title}
	if b.ControlNumber == "" {
		b.warn(No001, "001", "the record has no control number (001): nothing names it across files")
	}
	b.Authors = authorsOf(r)
	b.ISBNs = b.isbnsOf(r)
	b.Publisher, b.Year = publicationOf(r)
	b.Language = languageOf(r)
	b.Subjects = subjectsOf(r)
	b.Copies = b.copiesOf(r, holdings)
	return b, nil
}

func (b *Bib) warn(code Code, tag, format string, args ...any) {
	b.Warnings = append(b.Warnings, Warning{Code: code, Tag: tag, Message: fmt.Sprintf(format, args...)})
}
