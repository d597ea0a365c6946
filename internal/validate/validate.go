// Package validate checks the values that enter the service from outside: identifiers,
// amounts, free text and email addresses. Each check returns nil or an *errs.Error with code
// errs.InvalidRequest whose detail names the field and the rule, never echoing the value, so
// that nothing a client sends reaches a log line, an SQL string or an email header unchecked.
package validate

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"library/internal/errs"
)

// Limits of the HTTP contract.
const (
	MaxIDLength = 128
	MinAmount   = 1
	MaxAmount   = 100_000_000
	// MaxEmailLength is the longest address SMTP can carry (RFC 5321 path limit).
	MaxEmailLength = 254
)

// IsID reports whether s is a valid identifier: 1 to 128 characters from [A-Za-z0-9._:@+-],
// starting with a letter or a digit.
func IsID(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLength || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && !strings.ContainsRune("._:@+-", rune(c)) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// ID checks an identifier.
func ID(field, s string) error {
	if s == "" {
		return errs.E(errs.InvalidRequest, "%s is required", field)
	}
	if !IsID(s) {
		return errs.E(errs.InvalidRequest,
			"%s must be 1 to %d characters from A-Z a-z 0-9 . _ : @ + -, starting with a letter or digit", field, MaxIDLength)
	}
	return nil
}

// LooksLikeEmail reports whether an id looks like an email address (something@domain.tld):
// such ids are personal data, and new ones are refused.
func LooksLikeEmail(id string) bool {
	local, domain, ok := strings.Cut(id, "@")
	return ok && local != "" && strings.Contains(domain, ".")
}

// MeID is the member id that means "the caller": no member may have it.
const MeID = "me"

// MemberID checks a member id: an identifier, and not MeID, which GET /accounts/me keeps for
// the caller's own account.
func MemberID(field, s string) error {
	if err := ID(field, s); err != nil {
		return err
	}
	if s == MeID {
		return errs.E(errs.InvalidRequest, "%s can't be %q: /accounts/%s is the caller's own account", field, MeID, MeID)
	}
	return nil
}

// Amount checks an amount in cents.
func Amount(field string, cents int64) error {
	if cents < MinAmount || cents > MaxAmount {
		return errs.E(errs.InvalidRequest, "%s must be a whole number of cents from %d to %d", field, MinAmount, MaxAmount)
	}
	return nil
}

// Text checks a required line of text: 1 to maxLength characters, not only spaces, and none of them
// control, format or separator characters (so no line breaks of any kind and no bidirectional
// overrides).
func Text(field, s string, maxLength int) error {
	if strings.TrimSpace(s) == "" {
		return errs.E(errs.InvalidRequest, "%s is required", field)
	}
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxLength {
		return errs.E(errs.InvalidRequest, "%s must be at most %d characters of UTF-8 text", field, maxLength)
	}
	if !plainText(s) {
		return errs.E(errs.InvalidRequest, "%s must be a single line without control characters", field)
	}
	return nil
}

// plainText reports whether s has no character notPlainText is true for, a byte at a time
// while s is ASCII (most text), a rune at a time from the first byte that is not.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.IndexFunc(s[i:], notPlainText) < 0
		}
		if c < ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// notPlainText is true for control, format and separator characters, and for U+FFFD, which is
// what a JSON decoder makes of a lone surrogate or invalid UTF-8: the sender's text is lost.
func notPlainText(r rune) bool {
	if r < utf8.RuneSelf { // ASCII, most text: only its controls (no format or separator is ASCII)
		return r < ' ' || r == 0x7f
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || r == utf8.RuneError
}

// Email checks a bare email address such as "alice@example.com": no display name, no
// comments, no control characters, a host name (not an address in brackets) after the @, at
// most 254 characters.
func Email(field, s string) error {
	if len(s) == 0 || len(s) > MaxEmailLength || strings.IndexFunc(s, func(r rune) bool {
		return r > unicode.MaxASCII || unicode.IsControl(r) || unicode.IsSpace(r)
	}) >= 0 {
		return badEmail(field)
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name != "" || addr.Address != s {
		return badEmail(field)
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || !isHostName(s[at+1:]) {
		return badEmail(field)
	}
	return nil
}

// badEmail is the error Email returns for field; it is built only once the address has failed.
func badEmail(field string) error {
	return errs.E(errs.InvalidRequest, "%s must be a plain email address such as alice@example.com", field)
}

// isHostName reports whether s is a DNS name: dot-separated labels of letters, digits and
// inner hyphens.
func isHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !isAlnum(label[i]) && label[i] != '-' {
				return false
			}
		}
	}
	return true
}

// All returns the first of checks that failed, or nil.
func All(checks ...error) error {
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}
