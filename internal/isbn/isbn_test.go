package isbn_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/isbn"
)

// Real books' numbers, as printed on them, each read as its ISBN-13.
func TestParseReadsRealISBNs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, written, want string }{
		{"Dune (Ace), ISBN-10", "0-441-01359-7", "9780441013593"},
		{"Dune (Ace), ISBN-13", "978-0-441-01359-3", "9780441013593"},
		{"Dune (Ace), bare ISBN-13", "9780441013593", "9780441013593"},
		{"The C Programming Language, 2nd edition", "0131103628", "9780131103627"},
		{"Structure and Interpretation of Computer Programs, 2nd edition", "0 262 51087 1", "9780262510875"},
		{"Pride and Prejudice (Penguin Classics)", "0-14-143951-3", "9780141439518"},
		{"an ISBN-10 whose check digit is X", "0-590-35342-X", "9780590353427"},
		{"an ISBN-10 whose ISBN-13 has the check digit 0: Design Patterns", "0-201-63361-2", "9780201633610"},
		{"a small x is an X", "059035342x", "9780590353427"},
		{"the same number as its ISBN-13", "978-0-590-35342-7", "9780590353427"},
		{"an ISBN-13 in the 979 range", "979-10-90636-07-1", "9791090636071"},
		{"spaces around and between", "  978 0 262 51087 5 ", "9780262510875"},
		{"hyphens anywhere", "-97802625-10875-", "9780262510875"},
	} {
		got, err := isbn.Parse("isbn", c.written)
		if assert.NoError(t, err, c.name) {
			assert.Equal(t, c.want, got, c.name)
		}
	}
}

// Anything else is refused with InvalidRequest, naming the field and never the value.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, written string }{
		{"empty", ""},
		{"only hyphens", "---"},
		{"a wrong ISBN-10 check digit", "0-441-01359-8"},
		{"a wrong ISBN-13 check digit", "978-0-441-01359-4"},
		{"two digits swapped", "0-441-01395-7"},
		{"X that is not the check digit", "0-441-0135X-7"},
		{"X on an ISBN-13", "978-0-441-0135X-3"},
		{"X where 10 is not the check", "0-441-01359-X"},
		{"9 digits", "044101359"},
		{"11 digits", "04410135977"},
		{"12 digits", "978044101359"},
		{"14 digits", "97804410135930"},
		{"an EAN-13 that is not an ISBN", "4006381333931"},
		{"a prefix word", "ISBN 0441013597"},
		{"a dot", "0.441.01359.7"},
		{"a tab", "0441013597\t"},
		{"full-width digits", "０４４１０１３５９７"},
		{"far too long", strings.Repeat("-", 100) + "0441013597"},
	} {
		_, err := isbn.Parse("isbn", c.written)
		require.Error(t, err, c.name)
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), c.name)
		var e *errs.Error
		require.ErrorAs(t, err, &e, c.name)
		detail := e.Detail
		assert.True(t, strings.HasPrefix(detail, "isbn "), "%s: %q names the field", c.name, detail)
		if strings.Trim(c.written, "- ") != "" {
			assert.NotContains(t, detail, strings.Trim(c.written, "- "), c.name)
		}
	}
}

func TestTen(t *testing.T) {
	t.Parallel()
	for isbn13, want := range map[string]string{
		"9780441013593": "0441013597",
		"9780590353427": "059035342X",
		"9780131103627": "0131103628",
	} {
		got, ok := isbn.Ten(isbn13)
		assert.True(t, ok, isbn13)
		assert.Equal(t, want, got, isbn13)
	}
	for _, none := range []string{"9791090636071", "", "978044101359", "978044101359X"} {
		_, ok := isbn.Ten(none)
		assert.False(t, ok, "%q has no ISBN-10", none)
	}
}
