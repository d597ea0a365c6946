package catalogimport

import (
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"library/internal/books"
	"library/internal/errs"
	"library/internal/titles"
)

// unknownAuthor is the author of a title whose record names none: a title has at least one.
const unknownAuthor = "Unknown"

// fitted is a record as the catalogue keeps it: the title to add, its copies, and what was
// left out or cut, as warnings.
type fitted struct {
	title    titles.AddTitle
	copies   []books.AddCopy
	warnings []Warning
}

// fit makes a record the title the catalogue keeps, or says why it can't (a refused Outcome's
// reason and message).
func fit(r Record, now time.Time) (fitted, string, string) {
	f := fitted{warnings: append([]Warning(nil), r.Warnings...)}
	title := clean(r.Title)
	if title == "" {
		return f, ReasonNoTitle, "the record has no title (245 $a)"
	}
	f.title = titles.AddTitle{ID: TitleID(identity(r)), Title: f.cut("title", title, titles.MaxTitleLength)}
	if cn := clean(r.ControlNumber); cn != "" {
		f.title.ControlNumber = f.cut("controlNumber", cn, titles.MaxControlNumberLength)
	}
	f.title.Authors = f.list("authors", r.Authors, titles.MaxAuthors, titles.MaxAuthorLength)
	if len(f.title.Authors) == 0 {
		f.title.Authors = []string{unknownAuthor}
		f.warn(Warning{Reason: WarningNoAuthor, Field: "authors", Message: "the record names no author: recorded as " + unknownAuthor})
	}
	f.title.Subjects = f.list("subjects", r.Subjects, titles.MaxSubjects, titles.MaxSubjectLength)
	f.optional(r, now)
	checked, err := f.title.Checked(now)
	if err != nil {
		return f, ReasonInvalid, detail(err)
	}
	f.title = checked
	f.copies = f.copiesOf(r.Copies, checked.ID)
	return f, "", ""
}

// identity is what a record is known by in the import: its control number, or, for a record
// without one, its ISBN, or else what it says of itself.
func identity(r Record) string {
	if cn := strings.TrimSpace(r.ControlNumber); cn != "" {
		return cn
	}
	if r.ISBN != "" {
		return "isbn:" + r.ISBN
	}
	return "record:" + r.Title + "\x00" + strings.Join(r.Authors, "\x00") + "\x00" + r.Publisher
}

// optional sets the optional fields that the catalogue keeps, each checked alone: one it
// can't keep is left out, with a warning.
func (f *fitted) optional(r Record, now time.Time) {
	minimal := titles.AddTitle{ID: f.title.ID, Title: f.title.Title, Authors: f.title.Authors}
	try := func(field string, set func(*titles.AddTitle)) {
		alone := minimal
		set(&alone)
		if _, err := alone.Checked(now); err != nil {
			f.warn(Warning{Reason: WarningDropped, Field: field, Message: detail(err)})
			return
		}
		set(&f.title)
	}
	if isbn := strings.TrimSpace(r.ISBN); isbn != "" {
		try("isbn", func(t *titles.AddTitle) { t.ISBN = &isbn })
	}
	if year := r.Year; year != 0 {
		try("year", func(t *titles.AddTitle) { t.Year = &year })
	}
	if publisher := clean(r.Publisher); publisher != "" {
		publisher = f.cut("publisher", publisher, titles.MaxPublisherLength)
		try("publisher", func(t *titles.AddTitle) { t.Publisher = &publisher })
	}
	if language := strings.TrimSpace(r.Language); language != "" {
		try("language", func(t *titles.AddTitle) { t.Language = &language })
	}
}

// copiesOf are the copies with a barcode the library keeps, each once; the others are
// warnings.
func (f *fitted) copiesOf(copies []Copy, titleID string) []books.AddCopy {
	var out []books.AddCopy
	seen := map[string]bool{}
	for _, c := range copies {
		barcode, err := books.Barcode("barcode", strings.TrimSpace(c.Barcode))
		if err != nil {
			f.warn(Warning{Reason: ReasonBadBarcode, Barcode: c.Barcode, Message: detail(err)})
			continue
		}
		if seen[barcode] {
			continue
		}
		seen[barcode] = true
		add := books.AddCopy{ID: CopyID(barcode), TitleID: titleID, Barcode: barcode,
			MaterialType: strings.ToLower(strings.TrimSpace(c.MaterialType)), ReplacementPrice: max(c.Price, 0)}
		if callNumber := clean(c.CallNumber); callNumber != "" {
			add.CallNumber = f.cut("callNumber", callNumber, books.MaxCallNumberLength)
		}
		if _, err := add.Checked(); err != nil {
			f.warn(Warning{Reason: WarningDropped, Field: "materialType", Barcode: barcode, Message: detail(err)})
			add.MaterialType = ""
		}
		out = append(out, add)
	}
	return out
}

// list is a list of texts, each cleaned and cut to length, none twice, at most n of them.
func (f *fitted) list(field string, items []string, n, length int) []string {
	var out []string
	for _, item := range items {
		item = f.cut(field, clean(item), length)
		if item != "" && !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	if len(out) > n {
		f.warn(Warning{Reason: WarningCut, Field: field, Message: "the record has more than a title keeps: the first are kept"})
		out = out[:n]
	}
	return out
}

// cut cuts s to length characters, with a warning when it was longer.
func (f *fitted) cut(field, s string, length int) string {
	if utf8.RuneCountInString(s) <= length {
		return s
	}
	f.warn(Warning{Reason: WarningCut, Field: field, Message: "longer than a title keeps: cut"})
	return strings.TrimSpace(string([]rune(s)[:length]))
}

func (f *fitted) warn(w Warning) { f.warnings = append(f.warnings, w) }

// clean is s as one line of text: control and format characters are spaces, runs of spaces
// one, none at either end.
func clean(s string) string {
	if oneLine(s) {
		return s
	}
	return cleanRunes(s)
}

// cleanRunes is clean, a rune at a time.
func cleanRunes(s string) string {
	s = strings.ToValidUTF8(s, " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// oneLine reports whether s is one line of text as clean makes it, in printable ASCII alone:
// most of a catalogue's text, which clean then leaves as it is without a look at each rune.
func oneLine(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < ' ' || c >= 0x7f:
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' '):
			return false
		}
	}
	return true
}

// detail is what an error of the domain says to the one who asked: its Detail.
func detail(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Detail
	}
	return err.Error()
}
