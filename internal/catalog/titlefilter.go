package catalog

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"library/internal/errs"
	"library/internal/isbn"
	"library/internal/titles"
	"library/internal/validate"
)

// TitleFilter chooses one page of the catalog's titles: those after After, in the order of
// their SortTitle then id, that match the search and are on the shelf when asked, at most
// Limit of them.
type TitleFilter struct {
	// Words must each occur, as a substring, in the title, in one of its authors or in one of
	// its subjects, folded by FoldCase (ParseSearch makes them). None: no search by words.
	Words []string
	// ISBN, the 13 digits of an ISBN-13, keeps the title that has it, whatever Words say: a
	// search that is an ISBN finds its title. "" for none.
	ISBN string
	// Available keeps the titles with a copy on the shelf for anyone.
	Available bool
	// After is where the page before ended; the zero value for the first page.
	After TitleKey
	// Limit is the most titles on the page, 1 to MaxPageSize; 0 means DefaultPageSize.
	Limit int
}

// TitleKey is a title's place in the order of titles: its SortTitle, then its id.
type TitleKey struct {
	Sort string
	ID   string
}

// Less reports whether k comes before other, comparing byte by byte, as PostgreSQL's "C"
// collation does.
func (k TitleKey) Less(other TitleKey) bool {
	return k.Sort < other.Sort || (k.Sort == other.Sort && k.ID < other.ID)
}

// KeyOf is a title's place in the order of titles.
func KeyOf(t Title) TitleKey { return TitleKey{Sort: SortTitle(t.Title), ID: t.ID} }

// PageSize is the filter's limit with the default applied.
func (f TitleFilter) PageSize() int {
	if f.Limit == 0 {
		return DefaultPageSize
	}
	return f.Limit
}

// Check refuses a filter that no request could make.
func (f TitleFilter) Check() error {
	if f.Limit < 0 || f.Limit > MaxPageSize {
		return errs.E(errs.InvalidRequest, "limit must be a whole number from 1 to %d", MaxPageSize)
	}
	if len(f.Words) > MaxSearchWords {
		return errs.E(errs.InvalidRequest, "q may have at most %d words", MaxSearchWords)
	}
	return nil
}

// Matches reports whether a title is one the filter keeps, wherever the page starts.
func (f TitleFilter) Matches(t Title, searchText string) bool {
	if f.Available && t.Counts.Available == 0 {
		return false
	}
	if f.ISBN != "" && t.ISBN == f.ISBN {
		return true
	}
	for _, w := range f.Words {
		if !strings.Contains(searchText, w) {
			return false
		}
	}
	return true
}

// TitlePage is one page of the catalog's titles.
type TitlePage struct {
	Titles []Title
	// More is true when titles after the last one match the filter.
	More bool
}

// Next is the cursor of the page after this one, "" when this is the last.
func (p TitlePage) Next() string {
	if !p.More || len(p.Titles) == 0 {
		return ""
	}
	return encodeTitleCursor(KeyOf(p.Titles[len(p.Titles)-1]))
}

// ParseTitleFilter reads GET /titles's query parameters as sent (an empty one counts as left
// out). It refuses anything out of the contract with errs.InvalidRequest, naming the parameter.
func ParseTitleFilter(q, available, limit, after string) (TitleFilter, error) {
	var f TitleFilter
	words, err := ParseSearch(q)
	if err != nil {
		return f, err
	}
	f.Words = words
	if len(words) > 0 {
		if digits, err := isbn.Parse("q", q); err == nil {
			f.ISBN = digits
		}
	}
	switch available {
	case "":
	case "true":
		f.Available = true
	default:
		return f, errs.E(errs.InvalidRequest, "available must be true, or left out")
	}
	if f.Limit, err = parseLimit(limit); err != nil {
		return f, err
	}
	if after != "" {
		if f.After, err = decodeTitleCursor(after); err != nil {
			return f, err
		}
	}
	return f, nil
}

// A title cursor is the unpadded base64url encoding of titleCursorVersion, the length of the
// sort title as a uvarint, the sort title, and the id of the last title of a page. Its version
// byte is not a book cursor's, so that neither list takes the other's cursor.
const titleCursorVersion = 2

// maxSortTitleBytes bounds the sort title a cursor may hold: a title's characters, each of at
// most utf8.UTFMax bytes, with room for lower case letters longer than their capitals.
const maxSortTitleBytes = 2 * utf8.UTFMax * titles.MaxTitleLength

// maxTitleCursorLength is the length of the longest title cursor.
var maxTitleCursorLength = base64.RawURLEncoding.EncodedLen(1 + binary.MaxVarintLen64 + maxSortTitleBytes + validate.MaxIDLength)

func encodeTitleCursor(k TitleKey) string {
	b := []byte{titleCursorVersion}
	b = binary.AppendUvarint(b, uint64(len(k.Sort)))
	b = append(append(b, k.Sort...), k.ID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeTitleCursor returns the place in a cursor, refusing whatever encodeTitleCursor could not
// have made.
func decodeTitleCursor(c string) (TitleKey, error) {
	bad := errs.E(errs.InvalidRequest, "after must be the next of an earlier page of titles, as the service returned it")
	if len(c) > maxTitleCursorLength {
		return TitleKey{}, bad
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(b) < 2 || b[0] != titleCursorVersion {
		return TitleKey{}, bad
	}
	n, size := binary.Uvarint(b[1:])
	rest := b[1+max(size, 0):]
	// One encoding per cursor: the length as the shortest uvarint, as encodeTitleCursor writes it.
	if size <= 0 || size != len(binary.AppendUvarint(nil, n)) || n == 0 || n > maxSortTitleBytes || n > uint64(len(rest)) {
		return TitleKey{}, bad
	}
	k := TitleKey{Sort: string(rest[:n]), ID: string(rest[n:])}
	if !utf8.ValidString(k.Sort) || !validate.IsID(k.ID) {
		return TitleKey{}, bad
	}
	return k, nil
}
