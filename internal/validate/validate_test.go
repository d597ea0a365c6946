package validate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/validate"
)

// requireInvalid proves that err is an InvalidRequest whose detail names the field and never
// echoes the offending value (nor any marker hidden inside it). Values shorter than 5 bytes are
// not checked: they could match the fixed wording of the detail by chance.
func requireInvalid(t *testing.T, err error, field string, hidden ...string) {
	t.Helper()
	require.Error(t, err)
	require.True(t, errs.Is(err, errs.InvalidRequest), "want InvalidRequest, got %v", err)
	var e *errs.Error
	require.True(t, errors.As(err, &e))
	require.Contains(t, e.Detail, field, "the detail names the field")
	for _, h := range hidden {
		if len(h) >= 5 {
			require.NotContains(t, e.Detail, h, "the detail must not echo the value")
		}
	}
}

// TestIsIDAndID proves the identifier rule of the contract: 1 to 128 characters from
// [A-Za-z0-9._:@+-], starting with a letter or digit, and that ID refuses with InvalidRequest
// without echoing the value.
func TestIsIDAndID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"one letter", "a", true},
		{"one digit", "7", true},
		{"upper case", "Z", true},
		{"128 characters", strings.Repeat("a", 128), true},
		{"129 characters", strings.Repeat("a", 129), false},
		{"128 with punctuation", "a" + strings.Repeat(".", 127), true},
		{"dot", "a.b", true},
		{"underscore", "a_b", true},
		{"colon", "a:b", true},
		{"at", "a@b", true},
		{"plus", "a+b", true},
		{"hyphen", "a-b", true},
		{"trailing punctuation", "a._:@+-", true},
		{"leading dot", ".a", false},
		{"leading underscore", "_a", false},
		{"leading colon", ":a", false},
		{"leading at", "@a", false},
		{"leading plus", "+a", false},
		{"leading hyphen", "-a", false},
		{"empty", "", false},
		{"space inside", "a b", false},
		{"leading space", " a", false},
		{"trailing space", "a ", false},
		{"slash", "a/b", false},
		{"dot dot slash", "a/../b", false},
		{"backslash", `a\b`, false},
		{"percent", "a%2F", false},
		{"question mark", "a?b", false},
		{"hash", "a#b", false},
		{"quote", `a"b`, false},
		{"NUL", "a\x00", false},
		{"newline", "a\nb", false},
		{"unicode letter", "é", false},
		{"unicode inside", "caf\u00e9", false},
		{"fullwidth digit", "\uff11", false},
		{"invalid UTF-8", "a\xff", false},
		{"marker with path", "SECRET/../etc", false},
		{"marker with SQL", "SECRET';DROP", false},
		{"marker with CRLF", "SECRET\r\nX-Evil: 1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.ok, validate.IsID(tt.in))
			err := validate.ID("bookId", tt.in)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, "bookId", tt.in, "SECRET")
		})
	}
}

// TestAmount proves the amount bounds 1..100000000 cents.
func TestAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in int64
		ok bool
	}{
		{0, false},
		{1, true},
		{2, true},
		{100_000_000, true},
		{100_000_001, false},
		{-1, false},
		{-100_000_000, false},
		{-1 << 63, false},
		{1<<63 - 1, false},
	}
	for _, tt := range tests {
		err := validate.Amount("amount", tt.in)
		if tt.ok {
			require.NoError(t, err, "amount %d", tt.in)
			continue
		}
		requireInvalid(t, err, "amount")
	}
}

// TestText proves the free-text rule: required, not only spaces, one line without control
// characters, valid UTF-8, at most max characters counted in runes.
func TestText(t *testing.T) {
	t.Parallel()
	const maxLength = 5
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"plain", "Dune", true},
		{"inner spaces", "a b c", true},
		{"exactly max ASCII", "abcde", true},
		{"max runes, more bytes", "ééééé", true},   // 10 bytes, 5 runes
		{"max runes, 4-byte runes", "😀😀😀😀😀", true}, // 20 bytes, 5 runes
		{"one rune too many", "éééééé", false},
		{"one ASCII too many", "abcdef", false},
		{"empty", "", false},
		{"spaces only", "   ", false},
		{"tab only", "\t", false},
		{"no-break space only", "\u00a0\u00a0", false},
		{"CR LF", "SECRET\r\nX", false},
		{"LF", "SECRET\nX", false},
		{"CR", "SECRET\rX", false},
		{"tab inside", "SECRET\tX", false},
		{"NUL", "SECRET\x00", false},
		{"DEL", "SECRET\x7f", false},
		{"escape", "SECRET\x1b[31m", false},
		{"NEL", "SECRET\u0085", false},
		{"line separator", "SECRET\u2028X", false},
		{"paragraph separator", "SECRET\u2029X", false},
		{"right-to-left override", "SECRET\u202eX", false},
		{"zero-width joiner", "SECRET\u200dX", false},
		{"replacement character", "SECRET\ufffdX", false},
		{"invalid UTF-8", "SECRET\xff", false},
		{"truncated UTF-8", "SECRET\xc3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := validate.Text("title", tt.in, maxLength)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, "title", "SECRET")
		})
	}
}

// TestEmail proves that only a bare address passes: no display name, angle brackets,
// comments, spaces, line breaks (no header injection), non-ASCII, and at most 254 characters.
func TestEmail(t *testing.T) {
	t.Parallel()
	long254 := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." +
		strings.Repeat("c", 63) + "." + strings.Repeat("d", 50) + "."
	long254 += strings.Repeat("e", 254-len(long254))
	require.Len(t, long254, 254)

	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"plain", "zoe@example.org", true},
		{"plus and dots", "zoe.b+lib@mail.example.org", true},
		{"254 characters", long254, true},
		{"255 characters", long254 + "e", false},
		{"display name", "Alice <a@b.c>", false},
		{"quoted display name", `"Alice" <a@b.c>`, false},
		{"angle brackets only", "<a@b.c>", false},
		{"comment", "a@b.c (SECRET)", false},
		{"quoted local part", `"ab"@c.d`, false},
		{"CRLF header injection", "a@b.c\r\nBcc: x@y", false},
		{"LF header injection", "a@b.c\nBcc: x@y", false},
		{"space inside", "zo e@b.c", false},
		{"leading space", " a@b.c", false},
		{"trailing space", "a@b.c ", false},
		{"tab", "a@b.c\t", false},
		{"NUL", "a@b.c\x00", false},
		{"non-ASCII local part", "zöe@b.c", false},
		{"non-ASCII domain", "a@exämple.org", false},
		{"invalid UTF-8", "a@b.c\xff", false},
		{"missing at", "zoe.example.org", false},
		{"trailing at", "zoe@", false},
		{"leading at", "@example.org", false},
		{"two ats", "a@b@c.d", false},
		{"two addresses", "a@b.c,d@e.f", false},
		{"empty", "", false},
		{"single-label host", "zoe@localhost", true},
		{"hyphenated host", "zoe@mail-1.example.org", true},
		{"address literal", "a@[1.2.3.4]", false},
		{"empty label", "a@b..c", false},
		{"leading hyphen label", "a@-b.c", false},
		{"underscore in host", "a@b_c.d", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := validate.Email("email", tt.in)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, "email", tt.in, "Bcc", "SECRET", "Alice")
		})
	}
}

// TestAll proves that All returns the first failure, or nil when every check passed.
func TestAll(t *testing.T) {
	t.Parallel()
	require.NoError(t, validate.All())
	require.NoError(t, validate.All(nil, nil, nil))

	first := validate.ID("first", "")
	second := validate.Amount("second", 0)
	require.Same(t, first, validate.All(nil, first, second))
	require.Same(t, second, validate.All(nil, nil, second))

	err := validate.All(validate.ID("id", "ok"), validate.Text("title", "", 10), validate.Amount("amount", 0))
	requireInvalid(t, err, "title")
	require.NotContains(t, err.Error(), "amount", "only the first failure is reported")
}
