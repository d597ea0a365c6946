package catalog

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"library/internal/errs"
	"library/internal/validate"
)

// The limits of GET /books.
const (
	// DefaultPageSize is the books per page when the client does not say.
	DefaultPageSize = 100
	// MaxPageSize is the most books a page may hold.
	MaxPageSize = 1000
	// MaxSearchLength is the longest search, in characters.
	MaxSearchLength = 200
	// MaxSearchWords is the most words a search may have.
	MaxSearchWords = 10
)

// Filter chooses one page of the catalog: the books after After, in id order, that have
// the status and every word, at most Limit of them.
type Filter struct {
	// Status is "available", "lent", "held" (on the hold shelf, not on loan), "lost",
	// "claimedReturned" (on no shelf), or "" for every book.
	Status string
	// Words must each occur, as a substring, in the book's title or in its author, folded by
	// FoldCase (ParseSearch makes them). None: no search.
	Words []string
	// After is the id of the last book of the page before, "" for the first page.
	After string
	// Limit is the most books on the page, 1 to MaxPageSize; 0 means DefaultPageSize.
	Limit int
}

// PageSize is the filter's limit with the default applied.
func (f Filter) PageSize() int {
	if f.Limit == 0 {
		return DefaultPageSize
	}
	return f.Limit
}

// Check refuses a filter that no request could make.
func (f Filter) Check() error {
	if err := catalogStatus(f.Status); err != nil {
		return err
	}
	if f.Limit < 0 || f.Limit > MaxPageSize {
		return errs.E(errs.InvalidRequest, "limit must be a whole number from 1 to %d", MaxPageSize)
	}
	if len(f.Words) > MaxSearchWords {
		return errs.E(errs.InvalidRequest, "q may have at most %d words", MaxSearchWords)
	}
	return nil
}

// Page is one page of the catalog.
type Page struct {
	Books []Book
	// More is true when books after the last one match the filter.
	More bool
}

// Next is the cursor of the page after this one, "" when this is the last.
func (p Page) Next() string {
	if !p.More || len(p.Books) == 0 {
		return ""
	}
	return encodeCursor(p.Books[len(p.Books)-1].ID)
}

// ParseFilter reads GET /books's query parameters as sent (an empty one counts as left
// out). It refuses anything out of the contract with errs.InvalidRequest.
func ParseFilter(status, q, limit, after string) (Filter, error) {
	f := Filter{Status: status}
	if err := catalogStatus(status); err != nil {
		return f, err
	}
	words, err := ParseSearch(q)
	if err != nil {
		return f, err
	}
	f.Words = words
	if f.Limit, err = parseLimit(limit); err != nil {
		return f, err
	}
	if after != "" {
		if f.After, err = decodeCursor(after); err != nil {
			return f, err
		}
	}
	return f, nil
}

// parseLimit reads a page size: digits only (no sign, no spaces), 1 to MaxPageSize.
func parseLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxPageSize || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errs.E(errs.InvalidRequest, "limit must be a whole number from 1 to %d", MaxPageSize)
	}
	return n, nil
}

// ParseSearch splits a search into its words at white space and folds them with FoldCase,
// dropping repeats. A search is UTF-8 of at most MaxSearchLength characters and
// MaxSearchWords words, without control characters; an empty one, or one of spaces only, has
// no words.
func ParseSearch(q string) ([]string, error) {
	if !utf8.ValidString(q) || utf8.RuneCountInString(q) > MaxSearchLength {
		return nil, errs.E(errs.InvalidRequest, "q must be at most %d characters of UTF-8 text", MaxSearchLength)
	}
	if strings.IndexFunc(q, unicode.IsControl) >= 0 {
		return nil, errs.E(errs.InvalidRequest, "q must not hold control characters")
	}
	fields := strings.Fields(q)
	if len(fields) > MaxSearchWords {
		return nil, errs.E(errs.InvalidRequest, "q may have at most %d words", MaxSearchWords)
	}
	var words []string
	for _, w := range fields {
		if w = FoldCase(w); !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return words, nil
}

// FoldCase is the case folding search compares with, the same in memory and in PostgreSQL. The
// search_text column (migrations/00007_catalog_search.sql) is ICU's lower case, then each
// final sigma ς made σ and each "i" with a combining dot above (U+0307) made "i". Go's
// strings.ToLower agrees with ICU's lower case on every character but two: ICU lowers İ
// (U+0130) to "i" and U+0307, where Go drops the dot, and a capital sigma at the end of a word
// to ς, where Go gives σ. So FoldCase lowers İ as ICU does, then lowers the rest with Go and
// makes the same two replacements. (A server without ICU lowers with its locale instead, and
// may then differ.) The replacements let "istanbul" find İstanbul and σ find ς.
func FoldCase(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
	return foldAfterLower.Replace(s)
}

// foldAfterLower makes FoldCase's replacements after lowering.
var foldAfterLower = strings.NewReplacer("\u03c2", "\u03c3", "i\u0307", "i")

// A cursor is the unpadded base64url encoding of cursorVersion followed by the id of the last
// book of a page. Clients are told it is opaque, so that its form may change: a new form
// takes a new version byte.
const cursorVersion = 1

// maxCursorLength is the length of the longest cursor: that of the longest id.
var maxCursorLength = base64.RawURLEncoding.EncodedLen(1 + validate.MaxIDLength)

func encodeCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{cursorVersion}, id...))
}

// decodeCursor returns the book id in a cursor, refusing whatever encodeCursor could not have
// made. Strict decoding allows one encoding per cursor.
func decodeCursor(c string) (string, error) {
	bad := errs.E(errs.InvalidRequest, "after must be the next of an earlier page, as the service returned it")
	if len(c) > maxCursorLength {
		return "", bad
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(b) < 2 || b[0] != cursorVersion || !validate.IsID(string(b[1:])) {
		return "", bad
	}
	return string(b[1:]), nil
}
