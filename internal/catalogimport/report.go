package catalogimport

import "fmt"

// What came of a record.
const (
	Recorded  = "recorded"  // a title new to the library, with its copies
	Unchanged = "unchanged" // the title and its copies were there already, as the record has them
	Changed   = "changed"   // the title was there; what the record changed of it, or copies it adds, recorded
	Refused   = "refused"   // nothing recorded: see Reason
)

// Reasons a record, or a copy of it, is refused, and warnings are given, as the report names
// them. A reader of the file has reasons of its own for records it can't read (package marc).
const (
	ReasonNoTitle      = "noTitle"      // the record has no title
	ReasonInvalid      = "invalid"      // a field the title can't do without is not one the catalogue keeps
	ReasonBarcodeTaken = "barcodeTaken" // a copy's barcode is another copy's
	ReasonBadBarcode   = "badBarcode"   // a copy's barcode is not one the library keeps
	ReasonCopyOfOther  = "copyOfOther"  // a copy with this barcode is another title's
	ReasonTitleTaken   = "titleTaken"   // the title's ISBN is another title's, added meanwhile
	WarningDropped     = "dropped"      // a field left out: its value is not one the catalogue keeps
	WarningCut         = "cut"          // a list or a text cut to what a title keeps
	WarningNoAuthor    = "noAuthor"     // no author: the title is recorded with Unknown
)

// Outcome is what came of one record, as a line of the report.
type Outcome struct {
	Place         int       `json:"place"`
	ControlNumber string    `json:"controlNumber,omitempty"`
	TitleID       string    `json:"titleId,omitempty"`
	Outcome       string    `json:"outcome"`
	Reason        string    `json:"reason,omitempty"`
	Message       string    `json:"message,omitempty"`
	Copies        int       `json:"copies,omitempty"` // copies recorded
	Warnings      []Warning `json:"warnings,omitempty"`
}

// Warning is something of a record left out or refused, while the rest was recorded: a field,
// or a copy.
type Warning struct {
	Reason  string `json:"reason"`
	Field   string `json:"field,omitempty"`
	Barcode string `json:"barcode,omitempty"`
	Message string `json:"message"`
}

// Summary counts the records by what came of them.
type Summary struct {
	Read      int `json:"read"`
	Recorded  int `json:"recorded"`
	Unchanged int `json:"unchanged"`
	Changed   int `json:"changed"`
	Refused   int `json:"refused"`
	Copies    int `json:"copies"` // copies recorded
	Warnings  int `json:"warnings"`
}

// Count adds an outcome to the summary.
func (s *Summary) Count(o Outcome) {
	s.Read++
	switch o.Outcome {
	case Recorded:
		s.Recorded++
	case Unchanged:
		s.Unchanged++
	case Changed:
		s.Changed++
	default:
		s.Refused++
	}
	s.Copies += o.Copies
	s.Warnings += len(o.Warnings)
}

func (s Summary) String() string {
	return fmt.Sprintf("read %d, recorded %d, unchanged %d, changed %d, refused %d (copies recorded %d, warnings %d)",
		s.Read, s.Recorded, s.Unchanged, s.Changed, s.Refused, s.Copies, s.Warnings)
}
