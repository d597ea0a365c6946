package marcmap

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isbdMarks are the marks ISBD ends an element with before the next: " /" before a statement
// of responsibility, " :" before a remainder or a publisher, " ;" and " =" before another
// title, "," before a date or a relator.
const isbdMarks = "/:;=,"

// trimISBD is s without the ISBD marks and the full stop that end it, and its blanks. A full
// stop stays after an initial ("Tolkien, J. R. R."), an abbreviation ("Ace Books, Inc.") or
// an ellipsis.
func trimISBD(s string) string {
	for {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			return s
		case strings.ContainsRune(isbdMarks, rune(s[len(s)-1])):
			s = s[:len(s)-1]
		case s[len(s)-1] == '.' && !keepsFullStop(s):
			return strings.TrimSpace(s[:len(s)-1])
		default:
			return s
		}
	}
}

// keepsFullStop reports whether the full stop that ends s belongs to its last word: an
// initial, an abbreviation, or an ellipsis.
func keepsFullStop(s string) bool {
	body := s[:len(s)-1]
	if strings.HasSuffix(body, "..") {
		return true
	}
	word := body[strings.LastIndexAny(body, " ,.")+1:]
	if utf8.RuneCountInString(word) == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		return unicode.IsLetter(r)
	}
	return isAbbreviation(word)
}

// isAbbreviation reports whether word is one of the abbreviations that end names.
func isAbbreviation(word string) bool {
	switch strings.ToLower(word) {
	case "inc", "ltd", "co", "corp", "jr", "sr", "etc":
		return true
	}
	return false
}

// firstYear is the first run of exactly four digits in s, or 0.
func firstYear(s string) int {
	run := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && '0' <= s[i] && s[i] <= '9' {
			run++
			continue
		}
		if run == 4 {
			year := 0
			for _, c := range s[i-4 : i] {
				year = year*10 + int(c-'0')
			}
			return year
		}
		run = 0
	}
	return 0
}

// maxPriceDigits keeps a price's hundredths well inside an int64.
const maxPriceDigits = 15

// priceCents reads an item's price as hundredths: "12.50", "12,50", "12", "1,234.50",
// "1.234,50", with a currency before or after ("$9.99", "JPY 3000", "12.50 EUR"). The decimal
// separator is the last "." or "," when one or two digits follow it; any other separates
// thousands. It reports false for anything else.
func priceCents(s string) (int64, bool) {
	const digits = "0123456789"
	start := strings.IndexAny(s, digits)
	if start < 0 {
		return 0, false
	}
	if start > 0 && (s[start-1] == '.' || s[start-1] == ',') {
		start-- // ".50"
	}
	if strings.ContainsAny(s[:start], "-−") {
		return 0, false // a negative amount
	}
	amount := s[start : strings.LastIndexAny(s, digits)+1]
	if strings.ContainsFunc(amount, func(c rune) bool { return !strings.ContainsRune(digits+".,", c) }) {
		return 0, false
	}
	whole, fraction := amount, ""
	if i := strings.LastIndexAny(amount, ".,"); i >= 0 && len(amount)-i-1 <= 2 {
		whole, fraction = amount[:i], amount[i+1:]
	}
	if whole == "" {
		whole = "0"
	}
	whole, ok := withoutThousands(whole)
	if !ok || len(whole) > maxPriceDigits {
		return 0, false
	}
	for len(fraction) < 2 {
		fraction += "0"
	}
	var cents int64
	for _, c := range whole + fraction {
		cents = cents*10 + int64(c-'0')
	}
	return cents, true
}

// withoutThousands is digits with their thousands separators ("1,234,567" or "1.234.567")
// taken out, and whether they stood every three digits.
func withoutThousands(s string) (string, bool) {
	groups := strings.FieldsFunc(s, func(c rune) bool { return c == '.' || c == ',' })
	if len(groups) == 0 || strings.Count(s, ".")+strings.Count(s, ",") != len(groups)-1 {
		return "", false
	}
	for i, g := range groups {
		if g == "" || i > 0 && len(g) != 3 || i == 0 && len(groups) > 1 && len(g) > 3 {
			return "", false
		}
	}
	return strings.Join(groups, ""), true
}
