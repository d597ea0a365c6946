package books

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"library/internal/aggregate"
)

// Every book is a copy of a title. A book added before books were copies (its BookAdded of
// schema version 1, {id, title, author}) names none, so its title is the one its title and
// author make: TitleIDOf, the same for every book whose title and author read alike once
// folded (Fold). So three "Dune" by Frank Herbert, however they were typed, are three copies of
// one title. A book added through POST /books today joins the title the same rule gives it, or,
// with an ISBN, the title that holds the ISBN (TitleIDForISBN when none does yet).
//
// Fold and TitleIDOf are stored data: the title ids of the books added before titles are made
// by them on every read of those books (the upcaster below), so they never change.

// Fold is a title or an author's name in the one form that books alike share: letters in small
// letters, accents taken off (é is e; ß is ss, æ ae, ø o, and so on), apostrophes dropped
// (Hitchhiker's is hitchhikers), and any run of other punctuation, symbols and spaces made one
// space, none at either end ("Dune: Messiah" and "DUNE - messiah" are "dune messiah").
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r) || isApostrophe(r): // an accent, apart from its letter once decomposed
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if gap && b.Len() > 0 {
				b.WriteByte(' ')
			}
			gap = false
			b.WriteString(foldLetter(unicode.ToLower(r)))
		default:
			gap = true
		}
	}
	return b.String()
}

// isApostrophe is true for the marks written as apostrophes: a word keeps its letters together
// across one (O'Brien is obrien).
func isApostrophe(r rune) bool {
	switch r {
	case '\'', '\u2018', '\u2019', '\u02bc', '`', '\u00b4':
		return true
	}
	return false
}

// foldLetter is a small letter as Fold writes it: the letters that carry their accent in their
// shape, and no decomposition takes off, written as their plain letters.
func foldLetter(r rune) string {
	switch r {
	case 'ß':
		return "ss"
	case 'æ':
		return "ae"
	case 'œ':
		return "oe"
	case 'ø':
		return "o"
	case 'đ', 'ð':
		return "d"
	case 'ł':
		return "l"
	case 'þ':
		return "th"
	case 'ı':
		return "i"
	case 'ς':
		return "σ"
	}
	return string(r)
}

// TitleIDOf is the id of the title that the books with this title and author are copies of
// when they name none: those added before titles, and those added through POST /books without
// an ISBN. It is "t_" and 24 letters and digits, made from the folded title and author.
func TitleIDOf(title, author string) string {
	sum := sha256.Sum256([]byte("title of\x00" + Fold(title) + "\x00" + Fold(author)))
	return "t_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:15]))
}

// TitleIDForISBN is the id of the title made for a book added through POST /books with an ISBN
// that no title holds yet: "isbn-" and its 13 digits.
func TitleIDForISBN(isbn13 string) string { return "isbn-" + isbn13 }

// addedBeforeTitles is the upcaster of BookAdded from schema version 1, {id, title, author}, to
// version 2: the copy of the title its title and author make (TitleIDOf), without a barcode.
func addedBeforeTitles(in aggregate.StoredData) (json.RawMessage, error) {
	var v1 struct {
		ID     string `json:"id"`
		Title  string `json:"title"`
		Author string `json:"author"`
	}
	if err := json.Unmarshal(in.Data, &v1); err != nil {
		return nil, err
	}
	return json.Marshal(BookAdded{ID: v1.ID, TitleID: TitleIDOf(v1.Title, v1.Author), Title: v1.Title, Author: v1.Author, BeforeTitles: true})
}
