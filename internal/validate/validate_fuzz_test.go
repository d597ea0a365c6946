package validate_test

// Fuzz targets for the checks on values that come from outside: identifiers, email addresses
// and amounts. Each compares the check with the API's rule (docs/api.md), written here independently, and
// checks that a refusal never depends on (so never echoes) the value refused.

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"library/internal/accounts"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/validate"
)

// idPattern is the API's identifier rule (docs/api.md).
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$`)

// detailOf returns the detail of err, which must be an InvalidRequest *errs.Error.
func detailOf(t testing.TB, err error) string {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.InvalidRequest {
		t.Fatalf("want an InvalidRequest *errs.Error, got %v", err)
	}
	return e.Detail
}

// FuzzID checks that ID accepts exactly the identifiers of the rule (1 to 128 characters from
// A-Z a-z 0-9 . _ : @ + -, starting with a letter or digit), that IsID agrees, and that a refusal
// is an InvalidRequest with one of two fixed details, whatever the value.
func FuzzID(f *testing.F) {
	for _, seed := range []string{
		"", "a", "7", "b1", "alice@example.org", "A.b_c:d@e+f-g", strings.Repeat("a", 128),
		strings.Repeat("a", 129), "-a", ".a", "a b", "a/b", "a\\b", "a%2Fb", "a\x00", "a\r\nX: 1",
		"a\n", "café", "\uff11", "a\xff", "a\u202e", "..", "a?b", "a#b",
	} {
		f.Add(seed)
	}
	required := detailOf(f, validate.ID("loanId", ""))
	malformed := detailOf(f, validate.ID("loanId", "-"))
	f.Fuzz(func(t *testing.T, s string) {
		err := validate.ID("loanId", s)
		if want := idPattern.MatchString(s); (err == nil) != want || validate.IsID(s) != want {
			t.Fatalf("ID(%q) = %v, IsID = %v; the rule says %v", s, err, validate.IsID(s), want)
		}
		if err != nil {
			if d := detailOf(t, err); d != required && d != malformed {
				t.Fatalf("ID(%q) refused with a detail of its own: %q", s, d)
			}
		}
	})
}

// maxEmail is the longest address SMTP carries (RFC 5321's 256-octet path, less the brackets).
const maxEmail = 254

// Parts of an address that anything may send mail to: a dot-atom local part (RFC 5322 atext)
// and a DNS host name.
var (
	atext        = "A-Za-z0-9!#$%&'*+/=?^_`{|}~-"
	dotAtom      = regexp.MustCompile("^[" + atext + "]+(\\.[" + atext + "]+)*$")
	atextAndDots = regexp.MustCompile("^[." + atext + "]+$")
	hostName     = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)
)

// FuzzEmail checks that an address Email accepts is safe to put in a mail header and an SMTP
// envelope: at most 254 printable ASCII characters without spaces (so no CR, LF or other control
// character), one address and not a list, no display name, a local part of atext and dots and a
// DNS host name. Every ordinary address (dot-atom@host, at most 254 characters) is accepted.
// A refusal has one fixed detail.
func FuzzEmail(f *testing.F) {
	for _, seed := range []string{
		"zoe@example.org", "zoe.b+lib@mail.example.org", "zoe@localhost", "a..b@c.d", ".a@b.c",
		"a@b.c\r\nBcc: x@y", "a@b.c\nBcc: x@y", "a@b.c,d@e.f", "a@b.c;d@e.f", "Alice <a@b.c>",
		"<a@b.c>", `"a b"@c.d`, `"a@b"@c.d`, `"a,b"@c.d`, "a@b.c (SECRET)", "a(x)@b.c", "a@[1.2.3.4]",
		"a@b..c", "a@-b.c", "a@b_c.d", "a@b@c.d", "@b.c", "a@", "", "a@b.c\x00", "a@b.c\t",
		"zöe@b.c", "a@exämple.org", "a@b.c\xff", "=?utf-8?q?a?=@b.c", "a@b.c.", "a\\@b.c",
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61),
		strings.Repeat("a", 200) + "@" + strings.Repeat("b", 54),
	} {
		f.Add(seed)
	}
	bad := detailOf(f, validate.Email("email", ""))
	f.Fuzz(func(t *testing.T, s string) {
		err := validate.Email("email", s)
		local, host, hasAt := cutLast(s, "@")
		ordinary := len(s) <= maxEmail && hasAt && dotAtom.MatchString(local) &&
			len(host) <= 253 && hostName.MatchString(host)
		if err != nil {
			if ordinary {
				t.Fatalf("Email(%q) refused an ordinary address: %v", s, err)
			}
			if d := detailOf(t, err); d != bad {
				t.Fatalf("Email(%q) refused with a detail of its own: %q", s, d)
			}
			return
		}
		if len(s) > maxEmail {
			t.Fatalf("Email accepted %d characters", len(s))
		}
		for i := 0; i < len(s); i++ {
			if s[i] <= ' ' || s[i] > '~' {
				t.Fatalf("Email(%q) accepted the byte %#x", s, s[i])
			}
		}
		if !hasAt || !atextAndDots.MatchString(local) || !hostName.MatchString(host) {
			t.Fatalf("Email(%q) accepted local part %q, host %q", s, local, host)
		}
		list, err := mail.ParseAddressList(s)
		if err != nil || len(list) != 1 || list[0].Name != "" || list[0].Address != s {
			t.Fatalf("Email(%q) accepted what a header reads as %v, %v", s, list, err)
		}
	})
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// decodeAmount sends body to DecodeJSON as application/json and validates what it gives, as
// the payments and fines endpoints do.
func decodeAmount[C interface{ Validate() error }](body string) (C, error) {
	var c C
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(body)))
	r.Header.Set("Content-Type", "application/json")
	if err := httpapi.DecodeJSON(r, &c); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// The bounds of an amount in cents, as the OpenAPI document's Amount schema gives them.
const minCents, maxCents = 1, 100_000_000

// FuzzAmount puts arbitrary text where a payment's or a fine's amount goes. A payment is taken
// exactly when the text is a whole number of cents from 1 to 100000000 written as digits (no
// sign, exponent, fraction or leading zero), and its amount is that number; a fine with the
// same amount is taken too. Everything else is refused as InvalidRequest, a 400.
func FuzzAmount(f *testing.F) {
	for _, seed := range []string{
		"1", "250", "100000000", "100000001", "0", "-0", "-1", "01", "+1", "1.0", "1e3", "1E2",
		"0.5", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "1" + strings.Repeat("0", 400), `"100"`, "null", "true", "[]", "{}",
		"[1]", "0x10", "1_000", "Infinity", "NaN", "\uff11", " 7 ", "\t7\r\n", "1\x00", "",
		`1, "amount": 2`, `1, "Amount": 2`, `1, "reason": "x"`, `1, "loanId": "L1"`, `1}{"amount":2`,
		`1} x`, `{"nested": 1}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		pay, payErr := decodeAmount[accounts.Pay](`{"amount": ` + text + `}`)
		fine, fineErr := decodeAmount[accounts.ChargeFine](`{"amount": ` + text + `, "reason": "late"}`)
		for _, err := range []error{payErr, fineErr} {
			if err != nil && errs.CodeOf(err) != errs.InvalidRequest {
				t.Fatalf("amount %q: %v, want InvalidRequest", text, err)
			}
		}

		trimmed := strings.Trim(text, " \t\r\n")
		n, convErr := strconv.ParseInt(trimmed, 10, 64)
		want := convErr == nil && trimmed[0] >= '1' && trimmed[0] <= '9' &&
			n >= minCents && n <= maxCents
		if (payErr == nil) != want {
			t.Fatalf("payment of %q: %+v, %v; the rule says accepted: %v", text, pay, payErr, want)
		}
		if payErr == nil && (pay.Amount != n || fineErr != nil || fine.Amount != n) {
			t.Fatalf("amount %q: payment %d, fine %+v, %v; want %d for both", text, pay.Amount, fine, fineErr, n)
		}
		if fineErr == nil && (fine.Amount < minCents || fine.Amount > maxCents) {
			t.Fatalf("fine of %q: accepted the amount %d", text, fine.Amount)
		}
	})
}
