package marcmap

import (
	"errors"
	"slices"
	"strings"

	"library/internal/errs"
	"library/internal/isbn"
	"library/internal/marc"
)

// titleOf is 245 $a and $b, joined as ISBD joins a title and its remainder (" : ") unless $a
// already ends with its mark, without the punctuation that ends them.
func titleOf(r marc.Record) (string, *Refusal) {
	f, ok := r.Field("245")
	if !ok {
		return "", &Refusal{Code: No245, Message: "the record has no title statement (245)"}
	}
	a := strings.TrimSpace(f.Subfield('a'))
	b := strings.TrimSpace(f.Subfield('b'))
	title := a
	switch {
	case a == "":
		title = b
	case b == "":
	case strings.HasSuffix(a, ":") || strings.HasSuffix(a, ";") || strings.HasSuffix(a, "="):
		title = a + " " + b
	default:
		title = a + " : " + b
	}
	title = trimISBD(title)
	if title == "" {
		return "", &Refusal{Code: No245, Message: "the title statement (245) has no title in $a or $b"}
	}
	return title, nil
}

// authorsOf is the names in 100, 110 and 700 $a, in the record's order, each once.
func authorsOf(r marc.Record) []string {
	var out []string
	for _, f := range r.All("100", "110", "700") {
		out = appendOnce(out, trimISBD(f.Subfield('a')))
	}
	return out
}

// isbnsOf is the ISBN-13s of the 020 $a, each once; one that is not an ISBN is a warning.
func (b *Bib) isbnsOf(r marc.Record) []string {
	var out []string
	for _, f := range r.All("020") {
		for _, written := range f.Values('a') {
			number := isbnText(written)
			isbn13, err := isbn.Parse("020 $a", number)
			if err != nil {
				b.warn(BadISBN, "020", "%q: %s; it is left out", written, detail(err))
				continue
			}
			out = appendOnce(out, isbn13)
		}
	}
	return out
}

// isbnText is the number in an 020 $a, without what catalogues write around it: "ISBN" before,
// a qualifier such as "(pbk.)" or ": alk. paper" after.
func isbnText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 4 && strings.EqualFold(s[:4], "ISBN") {
		s = strings.TrimLeft(s[4:], " :")
	}
	if end := strings.IndexFunc(s, func(c rune) bool { return !strings.ContainsRune("0123456789Xx- ", c) }); end >= 0 {
		s = s[:end]
	}
	return strings.TrimSpace(s)
}

// detail is what an error of package isbn says, without its code.
func detail(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Detail
	}
	return err.Error()
}

// publicationOf is the publisher and year of the publication statement: the first 264 whose
// second indicator is 1 (publication), else the first 260, else the first 264. The year is the
// first four digits standing alone in its $c, else 008/07-10 (date 1) when those are digits.
func publicationOf(r marc.Record) (string, int) {
	var statement marc.Field
	found := false
	for _, f := range r.All("264") {
		if f.Ind2 == '1' {
			statement, found = f, true
			break
		}
	}
	if !found {
		statement, found = r.Field("260")
	}
	if !found {
		statement, _ = r.Field("264")
	}
	publisher := trimISBD(statement.Subfield('b'))
	year := firstYear(strings.Join(statement.Values('c'), " "))
	if year == 0 {
		if f008 := r.Control("008"); len(f008) >= 11 {
			year = firstYear(f008[7:11])
		}
	}
	return publisher, year
}

// languageOf is 008/35-37 when it is a language code (three lower-case letters), else the
// first code of the first 041 $a.
func languageOf(r marc.Record) string {
	if f008 := r.Control("008"); len(f008) >= 38 && isLanguageCode(f008[35:38]) {
		return f008[35:38]
	}
	if f, ok := r.Field("041"); ok {
		if a := f.Subfield('a'); len(a) >= 3 && isLanguageCode(a[:3]) {
			return a[:3]
		}
	}
	return ""
}

func isLanguageCode(s string) bool {
	for i := range len(s) {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return len(s) == 3
}

// subjectsOf is the topical (650) and geographic (651) headings' $a, each once.
func subjectsOf(r marc.Record) []string {
	var out []string
	for _, f := range r.All("650", "651") {
		for _, a := range f.Values('a') {
			out = appendOnce(out, trimISBD(a))
		}
	}
	return out
}

// appendOnce appends s to list unless it is empty or there already.
func appendOnce(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
