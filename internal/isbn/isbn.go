// Package isbn reads International Standard Book Numbers as people write them: an ISBN-10 or
// an ISBN-13, with hyphens or spaces anywhere between its digits, the last digit of an ISBN-10
// possibly X. It promises that what it accepts has a right check digit, and that it returns one
// form for every way of writing one book's number: the 13 digits of its ISBN-13. An ISBN-10 is
// its ISBN-13 with the prefix 978 and the check digit worked out again, so 0-441-01359-7 and
// 978-0-441-01359-3 are the same number, 9780441013593.
//
// A refusal is an errs.InvalidRequest whose detail names the field and the rule, never the value
// refused. The package is plain Go.
package isbn

import (
	"library/internal/errs"
)

// maxWritten is the longest an ISBN may be as written: 13 digits with a separator between
// each two and one at either end. Anything longer is refused before it is read.
const maxWritten = 2*13 + 1

// Parse returns the ISBN-13 of s, an ISBN-10 or ISBN-13 that may have hyphens and spaces, as 13
// digits; field names the value in a refusal.
func Parse(field, s string) (string, error) {
	digits, ok := digitsOf(s)
	if !ok {
		return "", errs.E(errs.InvalidRequest,
			"%s must be an ISBN-10 or ISBN-13: 10 or 13 digits (the last of 10 may be X), with hyphens or spaces between them if you like", field)
	}
	switch len(digits) {
	case 10:
		if !checks10(digits) {
			return "", wrongCheckDigit(field)
		}
		return from10(digits), nil
	default: // 13
		if digits[:3] != "978" && digits[:3] != "979" {
			return "", errs.E(errs.InvalidRequest, "%s must be an ISBN: an ISBN-13 begins with 978 or 979", field)
		}
		if !checks13(digits) {
			return "", wrongCheckDigit(field)
		}
		return digits, nil
	}
}

// Ten returns the ISBN-10 of an ISBN-13 as Parse returns it, and whether it has one: only
// those that begin with 978 do.
func Ten(isbn13 string) (string, bool) {
	if len(isbn13) != 13 || isbn13[:3] != "978" || !allDigits(isbn13) {
		return "", false
	}
	body := isbn13[3:12]
	sum := 0
	for i := range 9 {
		sum += (10 - i) * int(body[i]-'0')
	}
	check := (11 - sum%11) % 11
	if check == 10 {
		return body + "X", true
	}
	return body + string(rune('0'+check)), true
}

func wrongCheckDigit(field string) error {
	return errs.E(errs.InvalidRequest, "%s is not an ISBN: its check digit does not match its other digits (a digit mistyped?)", field)
}

// digitsOf returns s without its hyphens and spaces, and whether that is 10 digits (the last
// may be X, returned as X) or 13 digits.
func digitsOf(s string) (string, bool) {
	if len(s) > maxWritten {
		return "", false
	}
	var b [13]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == ' ':
			continue
		case n == len(b):
			return "", false
		case '0' <= c && c <= '9':
			b[n] = c
		case (c == 'X' || c == 'x') && n == 9:
			b[n] = 'X' // an ISBN-10's check digit; checked to be the last below
		default:
			return "", false
		}
		n++
	}
	digits := string(b[:n])
	switch n {
	case 10:
		return digits, true
	case 13:
		return digits, allDigits(digits)
	}
	return "", false
}

// checks10 reports whether an ISBN-10's digits, weighted 10 down to 1, add up to a multiple of 11.
func checks10(digits string) bool {
	sum := 0
	for i := range 10 {
		d := int(digits[i] - '0')
		if digits[i] == 'X' {
			d = 10
		}
		sum += (10 - i) * d
	}
	return sum%11 == 0
}

// checks13 reports whether an ISBN-13's digits, weighted 1 and 3 in turn, add up to a multiple
// of 10.
func checks13(digits string) bool {
	sum := 0
	for i := range 13 {
		sum += weight13(i) * int(digits[i]-'0')
	}
	return sum%10 == 0
}

func weight13(i int) int {
	if i%2 == 0 {
		return 1
	}
	return 3
}

// from10 is the ISBN-13 of a valid ISBN-10: 978, its first nine digits, and a check digit
// worked out for them.
func from10(digits string) string {
	body := "978" + digits[:9]
	sum := 0
	for i := range 12 {
		sum += weight13(i) * int(body[i]-'0')
	}
	return body + string(rune('0'+(10-sum%10)%10))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
