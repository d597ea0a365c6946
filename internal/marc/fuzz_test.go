package marc_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"library/internal/marc"
)

// reasons are the reasons the ISO 2709 reader gives.
var reasons = []marc.Reason{marc.ReasonBadLeader, marc.ReasonBadDirectory, marc.ReasonNoFieldTerminator,
	marc.ReasonNoRecordTerminator, marc.ReasonBadField, marc.ReasonInvalidUTF8, marc.ReasonMARC8, marc.ReasonTruncated}

// Whatever the bytes, the ISO 2709 reader never panics and comes to the end: each call
// consumes something or ends, so reading takes fewer calls than the input has bytes. Each
// error is a RecordError with one of the reader's reasons, numbered in turn, whose offset lies
// in the input; each record read is UTF-8 the writer writes again, and reads back the same.
func FuzzReadISO2709(f *testing.F) {
	seeds := [][]byte{
		iso(f, dune()),
		iso(f, small("1"), dune(), small("2")),
		rawRecord("m8", ' ', rawField{"245", "10\x1faDune"}),
		rawRecord("m8", ' ', rawField{"245", "10\x1faLo\xb1d\xe2z"}),
		rawRecord("u", 'a', rawField{"245", "10\x1faDune \xff"}),
		rawRecord("f", 'a', rawField{"245", "10Dune"}, rawField{"008", "x\x1fy"}),
		handMade("001000400000"+"2450", "bad\x1e"),
		iso(f, dune())[:100],
		[]byte("00026nam a2200025 i 4500\x1e\x1d"),
		[]byte("\r\n00100"),
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "yaz", "books.mrc")); err == nil {
		seeds = append(seeds, b)
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		r := marc.NewISO2709Reader(bytes.NewReader(input))
		ordinal := 0
		for calls := 0; ; calls++ {
			if calls > len(input)+1 {
				t.Fatalf("still reading after %d calls on %d bytes", calls, len(input))
			}
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			ordinal++
			if err != nil {
				checkRecordError(t, err, ordinal, len(input))
				if marc.ReasonOf(err) == marc.ReasonTruncated != isLast(err) {
					t.Fatalf("only a truncated record is the last one read: %v", err)
				}
				if isLast(err) {
					if _, err := r.Next(); !errors.Is(err, io.EOF) {
						t.Fatalf("after the Last refusal, %v", err)
					}
					return
				}
				continue
			}
			checkRecordReadsBack(t, rec)
		}
	})
}

func isLast(err error) bool {
	var re *marc.RecordError
	return errors.As(err, &re) && re.Last
}

func checkRecordError(t *testing.T, err error, ordinal, inputLength int) {
	t.Helper()
	var re *marc.RecordError
	if !errors.As(err, &re) {
		t.Fatalf("an error that is not a RecordError: %v", err)
	}
	if !slices.Contains(reasons, re.Reason) || re.Message == "" {
		t.Fatalf("a RecordError without a known reason or a message: %#v", re)
	}
	if re.Ordinal != ordinal || re.Offset < 0 || re.Offset >= int64(inputLength) {
		t.Fatalf("record %d at byte %d of %d: %v", ordinal, re.Offset, inputLength, re)
	}
}

func checkRecordReadsBack(t *testing.T, rec marc.Record) {
	t.Helper()
	for _, f := range rec.Fields {
		for _, s := range append([]marc.Subfield{{Value: f.Value}}, f.Subfields...) {
			if !utf8.ValidString(s.Value) {
				t.Fatalf("field %s read as text that is not UTF-8: %q", f.Tag, s.Value)
			}
		}
	}
	b, err := marc.MarshalISO2709(rec)
	if err != nil {
		t.Fatalf("a record read, %+v, that the writer refuses: %v", rec, err)
	}
	back, err := marc.NewISO2709Reader(bytes.NewReader(b)).Next()
	if err != nil {
		t.Fatalf("written as %q, which reads as %v", b, err)
	}
	if back.Leader[5:9]+back.Leader[17:20] != rec.Leader[5:9]+rec.Leader[17:20] {
		t.Fatalf("leader %q is written as %q", rec.Leader, back.Leader)
	}
	if len(back.Fields) != len(rec.Fields) || (len(rec.Fields) > 0 && !slices.EqualFunc(back.Fields, rec.Fields, sameField)) {
		t.Fatalf("%+v is written as %q, which reads as %+v", rec, b, back)
	}
}

func sameField(a, b marc.Field) bool {
	return a.Tag == b.Tag && a.Value == b.Value && a.Ind1 == b.Ind1 && a.Ind2 == b.Ind2 && slices.Equal(a.Subfields, b.Subfields)
}

// xmlReasons are the reasons the MARCXML reader gives.
var xmlReasons = []marc.Reason{marc.ReasonBadLeader, marc.ReasonBadField, marc.ReasonInvalidUTF8, marc.ReasonTruncated,
	marc.ReasonBadXML, marc.ReasonTooLarge}

// Whatever the bytes, the MARCXML reader never panics and comes to the end, each error is a
// RecordError with one of its reasons, and each record read is one both writers write, which
// reads back the same.
func FuzzReadMARCXML(f *testing.F) {
	f.Add(marcXML(f, dune(), small("2")))
	f.Add([]byte("<collection>" + recordG1 + recordG2 + "</collection>"))
	f.Add([]byte(`<record><leader>00000nam a2200000 i 4500</leader><datafield tag="245" ind1="10"><subfield code="ab">x</subfield></datafield></record>`))
	f.Add([]byte(`<collection><record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">cut</controlfield>`))
	f.Fuzz(func(t *testing.T, input []byte) {
		r := marc.NewXMLReader(bytes.NewReader(input))
		for calls := 0; ; calls++ {
			if calls > len(input)+1 {
				t.Fatalf("still reading after %d calls on %d bytes", calls, len(input))
			}
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var re *marc.RecordError
			if err != nil {
				if !errors.As(err, &re) || !slices.Contains(xmlReasons, re.Reason) {
					t.Fatalf("an error that is not a RecordError with one of the reader's reasons: %v", err)
				}
				if re.Last {
					if _, err := r.Next(); !errors.Is(err, io.EOF) {
						t.Fatalf("after the Last refusal, %v", err)
					}
					return
				}
				continue
			}
			var out bytes.Buffer
			w := marc.NewXMLWriter(&out)
			if err := w.Write(rec); err != nil {
				t.Fatalf("a record read, %+v, that the writer refuses: %v", rec, err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			back, err := marc.NewXMLReader(&out).Next()
			if err != nil || !slices.EqualFunc(back.Fields, rec.Fields, sameField) {
				t.Fatalf("%+v is written as %q, which reads as %+v, %v", rec, out.String(), back, err)
			}
			checkRecordReadsBack(t, rec)
		}
	})
}
