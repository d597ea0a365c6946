package books_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/validate"
)

// Fold writes titles and names alike in one form: small letters, no accents, no apostrophes,
// one space for any run of punctuation and spaces.
func TestFold(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Dune":                           "dune",
		"  DUNE  ":                       "dune",
		"Dune.":                          "dune",
		"Dune: Messiah":                  "dune messiah",
		"Dune -- Messiah":                "dune messiah",
		"Dune\u00a0\u2003Messiah":        "dune messiah",
		"The Hitchhiker's Guide":         "the hitchhikers guide",
		"The Hitchhiker\u2019s Guide":    "the hitchhikers guide",
		"Frank  Herbert":                 "frank herbert",
		"Émile, ou De l'éducation":       "emile ou de leducation",
		"Jean-Paul Sartre":               "jean paul sartre",
		"Straße":                         "strasse",
		"Ærø":                            "aero",
		"Łódź":                           "lodz",
		"İstanbul":                       "istanbul",
		"Œuvres":                         "oeuvres",
		"ﬁnal ½":                         "final 1 2",
		"Ἰλιάς":                          "ιλιασ", // a final sigma is a sigma
		"1984":                           "1984",
		"Nineteen Eighty-Four (Penguin)": "nineteen eighty four penguin",
		"":                               "",
		"?!":                             "",
	} {
		assert.Equal(t, want, books.Fold(in), "Fold(%q)", in)
	}
}

// The books that read alike once folded are copies of one title; others are not. A title id
// made so is an identifier.
func TestTitleIDOf(t *testing.T) {
	t.Parallel()
	dune := books.TitleIDOf("Dune", "Frank Herbert")
	for _, same := range [][2]string{{"DUNE", "frank herbert"}, {"Dune.", "Frank  Herbert"}, {" dune ", "FRANK HERBERT"}} {
		assert.Equal(t, dune, books.TitleIDOf(same[0], same[1]), "%q by %q", same[0], same[1])
	}
	for _, other := range [][2]string{{"Dune Messiah", "Frank Herbert"}, {"Dune", "Brian Herbert"}, {"Dune Frank", "Herbert"}} {
		assert.NotEqual(t, dune, books.TitleIDOf(other[0], other[1]), "%q by %q", other[0], other[1])
	}
	assert.True(t, strings.HasPrefix(dune, "t_") && len(dune) == 26, dune)
	assert.True(t, validate.IsID(dune), dune)
	assert.Equal(t, "isbn-9780441013593", books.TitleIDForISBN("9780441013593"))
	assert.True(t, validate.IsID(books.TitleIDForISBN("9780441013593")))
}

// A BookAdded written before books were copies ({id, title, author}, schema version 1) reads as
// a copy of the title its title and author make, and is told apart from one written since;
// a BookAdded written now is schema version 2, and reads back as written.
func TestBookAddedBeforeTitlesReadsAsACopy(t *testing.T) {
	t.Parallel()
	old := eventstore.Event{StreamID: "book-dune-1", Type: "BookAdded", Data: json.RawMessage(`{"id":"dune-1","title":"Dune","author":"Frank Herbert"}`)}
	got, err := books.Decode(old)
	require.NoError(t, err)
	require.Equal(t, books.BookAdded{ID: "dune-1", TitleID: books.TitleIDOf("Dune", "Frank Herbert"), Title: "Dune", Author: "Frank Herbert", BeforeTitles: true}, got)
	require.True(t, books.AddedBeforeTitles(old))

	added := books.BookAdded{ID: "dune-2", TitleID: "dune", Barcode: "A1", Title: "Dune", Author: "Frank Herbert"}
	encoded, err := aggregate.Encode(books.Type().Events, []aggregate.Event{added}, eventstore.Metadata{})
	require.NoError(t, err)
	require.Equal(t, 2, encoded[0].Metadata.Schema, "written at schema version 2")
	now := eventstore.Event{StreamID: "book-dune-2", Type: "BookAdded", Data: encoded[0].Data, Metadata: encoded[0].Metadata}
	got, err = books.Decode(now)
	require.NoError(t, err)
	require.Equal(t, added, got)
	require.False(t, books.AddedBeforeTitles(now))
	require.False(t, books.AddedBeforeTitles(eventstore.Event{StreamID: "book-dune-1", Type: "BookLent", Data: json.RawMessage(`{}`)}))
	require.False(t, books.AddedBeforeTitles(eventstore.Event{StreamID: "account-m1", Type: "BookAdded", Data: old.Data}))

	back := books.Apply(books.NewBook(), got)
	require.Equal(t, "dune", back.TitleID)
	require.Equal(t, "A1", back.Barcode)
	codec := books.Type().Snapshot
	b, err := codec.Encode(back)
	require.NoError(t, err)
	again, err := codec.Decode(b)
	require.NoError(t, err)
	require.Equal(t, back, again, "a copy's title and barcode survive a snapshot")
}

// A barcode is 1 to 32 letters, digits, hyphens and dots, starting with a letter or digit, kept
// in capitals; a refusal never names the value.
func TestBarcode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"31234000123456": "31234000123456",
		"lib-0042":       "LIB-0042",
		"A.1":            "A.1",
		"7":              "7",
		strings.Repeat("9", books.MaxBarcodeLength): strings.Repeat("9", books.MaxBarcodeLength),
	} {
		got, err := books.Barcode("barcode", in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "-12", ".12", "12 34", "12/34", "12_34", "12:34", "12$", "ÄB12", "12\n",
		strings.Repeat("9", books.MaxBarcodeLength+1)} {
		_, err := books.Barcode("barcode", bad)
		require.True(t, errs.Is(err, errs.InvalidRequest), "%q: %v", bad, err)
		if bad != "" {
			assert.NotContains(t, err.Error(), bad, "the refusal does not echo the value")
		}
	}
}
