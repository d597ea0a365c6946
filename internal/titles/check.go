package titles

import (
	"fmt"
	"slices"
	"time"

	"library/internal/errs"
	"library/internal/isbn"
	"library/internal/validate"
)

// The bounds of a title's fields. Lengths are in characters.
const (
	MaxTitleLength     = 300
	MaxAuthorLength    = 300
	MaxAuthors         = 20
	MaxPublisherLength = 200
	MaxSubjectLength   = 100
	MaxSubjects        = 30
	// MinYear is the earliest year of publication a title may have; the latest is the year
	// after the present one (a title is catalogued before it is published).
	MinYear = 1000
)

// validateID checks a title's id.
func validateID(id string) error { return validate.ID("titleId", id) }

// checkTitle checks a title's title.
func checkTitle(title string) error { return validate.Text("title", title, MaxTitleLength) }

// checkAuthors checks a title's authors: 1 to MaxAuthors names, each a line of text, none twice.
func checkAuthors(authors []string) error {
	if len(authors) == 0 || len(authors) > MaxAuthors {
		return errs.E(errs.InvalidRequest, "authors must name 1 to %d authors", MaxAuthors)
	}
	return checkList("authors", authors, MaxAuthorLength)
}

// checkSubjects checks a title's subjects: at most MaxSubjects, each a line of text, none twice.
func checkSubjects(subjects []string) error {
	if len(subjects) > MaxSubjects {
		return errs.E(errs.InvalidRequest, "subjects must name at most %d subjects", MaxSubjects)
	}
	return checkList("subjects", subjects, MaxSubjectLength)
}

func checkList(field string, items []string, maxLength int) error {
	for i, item := range items {
		if validate.Text(field, item, maxLength) != nil { // named by its place only when it is wrong
			return validate.Text(fmt.Sprintf("%s[%d]", field, i), item, maxLength)
		}
		if slices.Contains(items[:i], item) {
			return errs.E(errs.InvalidRequest, "%s must not name one twice", field)
		}
	}
	return nil
}

// checkYear checks a year of publication: MinYear to the year after now's.
func checkYear(year int, now time.Time) error {
	if latest := now.UTC().Year() + 1; year < MinYear || year > latest {
		return errs.E(errs.InvalidRequest, "year must be a year of publication from %d to %d", MinYear, latest)
	}
	return nil
}

// checkOptional checks the optional fields of one line that are given (not nil), a year
// against now, and returns the ISBN and the language as a title keeps them.
func checkOptional(isbnWritten *string, year *int, publisher, language *string, now time.Time) (*string, *string, error) {
	if year != nil {
		if err := checkYear(*year, now); err != nil {
			return nil, nil, err
		}
	}
	if publisher != nil {
		if err := validate.Text("publisher", *publisher, MaxPublisherLength); err != nil {
			return nil, nil, err
		}
	}
	if isbnWritten != nil {
		digits, err := isbn.Parse("isbn", *isbnWritten)
		if err != nil {
			return nil, nil, err
		}
		isbnWritten = &digits
	}
	if language != nil {
		code, err := Language("language", *language)
		if err != nil {
			return nil, nil, err
		}
		language = &code
	}
	return isbnWritten, language, nil
}
