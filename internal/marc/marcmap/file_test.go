package marcmap_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/marc"
	"library/internal/marc/marcmap"
)

// The records yaz-marcdump wrote (package marc's testdata) read as the titles they describe,
// from either format.
func TestMapsTheRecordsOfAFile(t *testing.T) {
	t.Parallel()
	want := []marcmap.Bib{
		{
			ControlNumber: "ocm00012345", Agency: "OCoLC",
			Title:     "Dune : a novel",
			Authors:   []string{"Herbert, Frank", "Anderson, Kevin J."},
			ISBNs:     []string{"9780441013593"},
			Publisher: "Ace Books", Year: 2005, Language: "eng",
			Subjects: []string{"Life on other planets", "Deserts", "Arrakis (Imaginary place)"},
			Copies: []marcmap.Copy{
				{Barcode: "31234000123456", MaterialType: "book", CallNumber: "SF HER", PriceCents: 999},
				{Barcode: "31234000123457", MaterialType: "book", CallNumber: "SF HER c.2", PriceCents: 1250},
			},
			Warnings: []marcmap.Warning{
				{Code: marcmap.BadISBN, Tag: "020", Message: `"0441013598": 020 $a is not an ISBN: its check digit does not match its other digits (a digit mistyped?); it is left out`},
				{Code: marcmap.NoBarcode, Tag: "952", Message: "952 #3 has no barcode: the copy is left out"},
			},
		},
		{
			ControlNumber: "jp-0042",
			Title:         "東京物語 = Tokyo story",
			ISBNs:         []string{"9784101001012"},
			Publisher:     "松竹", Year: 1953, Language: "jpn",
			Subjects: []string{"Families"},
			Copies: []marcmap.Copy{
				{Barcode: "39999000000001", CallNumber: "PN1997 .T65 1953", PriceCents: 2500},
				{Barcode: "39999000000002", CallNumber: "PN1997 .T65 1953", PriceCents: 300000},
			},
		},
		{
			ControlNumber: "pl-7", Agency: "PL-WaBN",
			Title:     "Łódź wczoraj i dziś",
			Authors:   []string{"Uniwersytet Łódzki"},
			Publisher: "Wydawnictwo Uniwersytetu Łódzkiego", Year: 1999, Language: "pol",
			Subjects: []string{"Łódź (Poland)", "Cafe\u0301s"},
		},
	}
	for _, name := range []string{"books.mrc", "books.xml"} {
		f, err := os.Open(filepath.Join("..", "testdata", "yaz", name))
		require.NoError(t, err)
		t.Cleanup(func() { _ = f.Close() })
		r, err := marc.NewReader(f)
		require.NoError(t, err)
		var got []marcmap.Bib
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			b, err := marcmap.Map(rec, marcmap.Holdings{})
			require.NoError(t, err)
			got = append(got, b)
		}
		assert.Equal(t, want, got, name)
	}
}
