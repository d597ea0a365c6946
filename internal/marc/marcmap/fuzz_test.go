package marcmap_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"library/internal/marc"
	"library/internal/marc/marcmap"
)

// Whatever record a file holds, Map never panics, and what it keeps is in the service's forms:
// a title, ISBN-13s, a year of at most four digits, a language of three letters or none, and
// copies each with a barcode of its own and a price that is not negative.
func FuzzMap(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "yaz", "books.mrc")); err == nil {
		f.Add(b)
	}
	for _, r := range []marc.Record{
		titled(df("952", ' ', ' ', sf('p', "b1"), sf('v', "1,234.50")), df("952", ' ', ' ', sf('p', "b1"))),
		titled(df("852", ' ', ' ', sf('8', "1"), sf('h', "QA76")), df("876", ' ', ' ', sf('8', "1.1"), sf('p', "b2"), sf('c', ".5"))),
		titled(df("020", ' ', ' ', sf('a', "ISBN 0-441-01359-7 (pbk.)")), df("264", ' ', '1', sf('b', "Ace,"), sf('c', "[2005]"))),
	} {
		b, err := marc.MarshalISO2709(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		r := marc.NewISO2709Reader(bytes.NewReader(input))
		for range len(input) + 1 {
			rec, err := r.Next()
			if marc.ReasonOf(err) != "" {
				continue
			}
			if err != nil {
				return
			}
			b, err := marcmap.Map(rec, marcmap.Holdings{})
			var refusal *marcmap.Refusal
			if errors.As(err, &refusal) {
				if refusal.Code != marcmap.No245 {
					t.Fatalf("a refusal other than no245: %v", err)
				}
				continue
			}
			checkBib(t, b)
		}
	})
}

func checkBib(t *testing.T, b marcmap.Bib) {
	t.Helper()
	if b.Title == "" {
		t.Fatalf("a title without a title: %+v", b)
	}
	for _, n := range b.ISBNs {
		if len(n) != 13 {
			t.Fatalf("ISBN %q is not an ISBN-13", n)
		}
	}
	if b.Year < 0 || b.Year > 9999 {
		t.Fatalf("year %d", b.Year)
	}
	if b.Language != "" && len(b.Language) != 3 {
		t.Fatalf("language %q", b.Language)
	}
	var barcodes []string
	for _, c := range b.Copies {
		if c.Barcode == "" || slices.Contains(barcodes, c.Barcode) || c.PriceCents < 0 {
			t.Fatalf("copy %+v among %v", c, barcodes)
		}
		barcodes = append(barcodes, c.Barcode)
	}
	for _, w := range b.Warnings {
		if w.Code == "" || w.Message == "" {
			t.Fatalf("warning %+v", w)
		}
	}
}
