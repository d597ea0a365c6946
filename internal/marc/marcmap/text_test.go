package marcmap

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTrimISBD(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Dune :":                "Dune",
		"a novel /":             "a novel",
		"Dune ;":                "Dune",
		"東京物語 =":                "東京物語",
		"Herbert, Frank,":       "Herbert, Frank",
		"Herbert, Frank.":       "Herbert, Frank",
		"Deserts.":              "Deserts",
		"  Dune :  ":            "Dune",
		"Dune. /":               "Dune",
		"Tolkien, J. R. R.":     "Tolkien, J. R. R.",
		"Tolkien, J.R.R.":       "Tolkien, J.R.R.",
		"Ace Books, Inc.":       "Ace Books, Inc.",
		"Smith, John, Jr.,":     "Smith, John, Jr.",
		"And then...":           "And then...",
		"Łódź wczoraj i dziś.":  "Łódź wczoraj i dziś",
		"Washington, D.C.":      "Washington, D.C.",
		"Uniwersytet Łódzki.":   "Uniwersytet Łódzki",
		"":                      "",
		" / ":                   "",
		"Who's afraid? :":       "Who's afraid?",
		"M*A*S*H":               "M*A*S*H",
		"Tolkien, J. R. R. ,":   "Tolkien, J. R. R.",
		"Gauß, Carl Friedrich.": "Gauß, Carl Friedrich",
	} {
		assert.Equal(t, want, trimISBD(in), "%q", in)
	}
}

// A full stop stays after a single letter, which is an initial, and goes after a word or a
// digit.
func TestKeepsFullStopAfterAnInitial(t *testing.T) {
	t.Parallel()
	assert.True(t, keepsFullStop("Tolkien, J. R. R."))
	assert.True(t, keepsFullStop("Ó."))
	assert.False(t, keepsFullStop("Frank."))
	assert.False(t, keepsFullStop("1."))
}

func TestFirstYear(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		"2005.":           2005,
		"[2005], ©1965.":  2005,
		"c1999":           1999,
		"©2015":           2015,
		"1999-2001":       1999,
		"12345, 2001":     2001,
		"19uu":            0,
		"[19--?]":         0,
		"":                0,
		"p. 123":          0,
		"Vol. 2, 1987 ed": 1987,
	} {
		assert.Equal(t, want, firstYear(in), "%q", in)
	}
}

func TestPriceCents(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"12.50":        1250,
		"12,50":        1250,
		"12":           1200,
		"12.5":         1250,
		"12.":          1200,
		".50":          50,
		"0.99":         99,
		"$9.99":        999,
		"9.99 USD":     999,
		"JPY 3000":     300000,
		"€ 12,50":      1250,
		"1,234.50":     123450,
		"1.234,50":     123450,
		"1,234":        123400,
		"1,234,567":    123456700,
		" 25.00 ":      2500,
		"999999999999": 99999999999900,
	} {
		got, ok := priceCents(in)
		if assert.True(t, ok, "%q", in) {
			assert.Equal(t, want, got, "%q", in)
		}
	}
	for _, in := range []string{"", "free", "-5.00", "−5", "1,23,45", "9.99/12.99", "1..5", "12 50", "1234567890123456", "12,3456"} {
		_, ok := priceCents(in)
		assert.False(t, ok, "%q", in)
	}
}
