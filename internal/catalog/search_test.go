package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/catalog"
)

// searchShelf is the books the search tests look through: id, title, author, and whether lent.
var searchShelf = []struct {
	id, title, author string
	lent              bool
}{
	{"b01", "Dune", "Frank Herbert", true},
	{"b02", "Dune Messiah", "Frank Herbert", false},
	{"b03", "Frankenstein", "Mary Shelley", false},
	{"b04", "Dune Road", "Frankie Dunes", true},
	{"b05", "DUNE IN CAPITALS", "anonymous", false},
	{"b06", "Ab", "Cd", false},
	{"b07", "100% Pure", "Percy", false},
	{"b08", "1000 Pure", "Percy", false},
	{"b09", "snake_case", "Underscore", false},
	{"b10", "snakeXcase", "Underscore", false},
	{`b11`, `C:\path`, "Backslash", false},
	{"b12", "C:path", "Backslash", false},
	{"b13", "Émile Zola", "ÉDITIONS DU SEUIL", true},
	{"b14", "ΟΔΥΣΣΕΑΣ", "Όμηρος", false},
	{"b15", "İstanbul", "Orhan Pamuk", false},
	{"b16", "Wuthering Heights", "Emily Brontë", false},
}

// Search, on both catalogs: every word of q, in any order, case-insensitive, as a substring of
// the title or of the author (each word may match either, but no word across the two); %, _
// and \ are matched as themselves; with status, and over pages of any size.
func TestCatalogSearch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status, q string
		want      []string
	}{
		{"", "dune", []string{"b01", "b02", "b04", "b05"}},
		{"", "DUNE", []string{"b01", "b02", "b04", "b05"}},
		{"", "dUnE   mEsSiAh", []string{"b02"}},
		{"", "frank dune", []string{"b01", "b02", "b04"}},
		{"", "dune frank", []string{"b01", "b02", "b04"}},
		{"", "herbert", []string{"b01", "b02"}},
		{"", "shelley frank", []string{"b03"}},
		{"", "dunes", []string{"b04"}},
		{"lent", "dune", []string{"b01", "b04"}},
		{"available", "dune", []string{"b02", "b05"}},
		{"lent", "frank", []string{"b01", "b04"}},
		{"", "dune herbert messiah frank e u", []string{"b02"}},
		{"", "dune zola", nil},
		{"", "bc", nil}, // "Ab" then "Cd": not across title and author
		{"", "ab cd", []string{"b06"}},
		{"", "100%", []string{"b07"}},
		{"", "%", []string{"b07"}},
		{"", "e_c", []string{"b09"}},
		{"", "_", []string{"b09"}},
		{"", `:\p`, []string{"b11"}},
		{"", `\`, []string{"b11"}},
		{"", "c:p", []string{"b12"}},
		{"", "émile", []string{"b13"}},
		{"", "ÉMILE éditions", []string{"b13"}},
		{"", "emile", nil}, // no accent folding
		{"", "οδυσσεας", []string{"b14"}},
		{"", "ΟΔΥΣΣΕΑΣ", []string{"b14"}},
		{"", "οδυσσεας όμηρος", []string{"b14"}},
		{"", "istanbul", []string{"b15"}},
		{"", "İSTANBUL", []string{"b15"}},
		{"", "brontë", []string{"b16"}},
		{"", "BRONTË", []string{"b16"}},
		{"", "", []string{"b01", "b02", "b03", "b04", "b05", "b06", "b07", "b08", "b09", "b10", "b11", "b12", "b13", "b14", "b15", "b16"}},
		{"lent", "   ", []string{"b01", "b04", "b13"}},
	}
	forEachCatalog(t, func(t *testing.T, c writable) {
		s := newShelf()
		for _, b := range searchShelf {
			s.add(t, b.id, b.title, b.author)
			if b.lent {
				s.lend(t, b.id)
			}
		}
		s.applyTo(t, c)
		for _, tc := range cases {
			f, err := catalog.ParseFilter(tc.status, tc.q, "", "")
			require.NoError(t, err)
			for _, limit := range []int{1, 2, 3, catalog.DefaultPageSize} {
				f.Limit = limit
				require.Equal(t, tc.want, pagedIDs(t, c, f), "status %q, q %q, limit %d", tc.status, tc.q, limit)
			}
		}
	})
}

// The words of q: split at any white space, folded, repeats dropped; limits on length, words
// and characters.
func TestParseSearch(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]string{
		"":                          nil,
		"  \u00a0 ":                 nil,
		"Dune":                      {"dune"},
		" Dune  HERBERT ":           {"dune", "herbert"},
		"dune\u00a0frank\u2003herb": {"dune", "frank", "herb"},
		"dune DUNE Dune":            {"dune"},
		"100%_\\":                   {"100%_\\"},
		"ΟΔΟΣ":                      {"οδοσ"},
		"İstanbul":                  {"istanbul"},
		"a b c d e f g h i j":       {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"},
	} {
		got, err := catalog.ParseSearch(q)
		require.NoError(t, err, "%q", q)
		require.Equal(t, want, got, "%q", q)
	}
	long := ""
	for range catalog.MaxSearchLength {
		long += "é"
	}
	_, err := catalog.ParseSearch(long)
	require.NoError(t, err, "200 characters, 400 bytes")
	for name, q := range map[string]string{
		"201 characters": long + "e",
		"11 words":       "a b c d e f g h i j k",
		"a tab":          "dune\tfrank",
		"a newline":      "dune\nfrank",
		"NUL":            "dune\x00",
		"DEL":            "dune\x7f",
		"NEL":            "dune\u0085frank",
		"U+001F":         "dune\x1ffrank",
		"invalid UTF-8":  "dune\xff",
	} {
		_, err := catalog.ParseSearch(q)
		require.Error(t, err, name)
	}
}

// FoldCase lowers as the database does (see catalog_property_test.go for the comparison).
func TestFoldCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Dune":      "dune",
		"ΟΔΟΣ":      "οδοσ",
		"οδος":      "οδοσ",
		"İstanbul":  "istanbul",
		"İ\u0307":   "i\u0307", // ICU: i, dot, dot; then one i and dot become i
		"I\u0307x":  "ix",
		"ÉDITIONS":  "éditions",
		"STRASSE ß": "strasse ß",
	} {
		require.Equal(t, want, catalog.FoldCase(in), "%q", in)
	}
}
