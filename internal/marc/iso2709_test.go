package marc_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/marc"
)

// What the writer writes, the reader reads back: every field, indicator and subfield in
// order, the text byte for byte, however the input arrives.
func TestISO2709ReadsBackWhatItWrites(t *testing.T) {
	t.Parallel()
	want := []marc.Record{dune(), small("2"), dune()}
	input := iso(t, want...)
	for name, r := range map[string]func() *marc.Reader{
		"all at once":     func() *marc.Reader { return marc.NewISO2709Reader(bytes.NewReader(input)) },
		"one byte a read": func() *marc.Reader { return marc.NewISO2709Reader(iotest.OneByteReader(bytes.NewReader(input))) },
		"half a read":     func() *marc.Reader { return marc.NewISO2709Reader(iotest.HalfReader(bytes.NewReader(input))) },
		"data with EOF":   func() *marc.Reader { return marc.NewISO2709Reader(iotest.DataErrReader(bytes.NewReader(input))) },
		"told apart":      func() *marc.Reader { return mustReader(t, input) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, results := readAll(t, r(), len(input))
			require.Equal(t, []string{"ocm00012345", "2", "ocm00012345"}, outline(results))
			for i := range want {
				requireSameRecord(t, want[i], got[i])
			}
		})
	}
}

func mustReader(t testing.TB, input []byte) *marc.Reader {
	t.Helper()
	r, err := marc.NewReader(bytes.NewReader(input))
	require.NoError(t, err)
	return r
}

// The writer lays the record out as ISO 2709 says, byte for byte.
func TestISO2709WriterLaysOutTheRecord(t *testing.T) {
	t.Parallel()
	b, err := marc.MarshalISO2709(marc.Record{Leader: "99999cam  2299999 a 4500", Fields: []marc.Field{
		marc.ControlField("001", "x1"),
		marc.DataField("245", '1', '0', sf('a', "Łódź")),
	}})
	require.NoError(t, err)
	// Leader, two entries, the directory's terminator; the fields; the record's terminator.
	want := "00065cam a2200049 a 4500" + "001000300000" + "245001200003" + "\x1e" +
		"x1\x1e" + "10\x1faŁódź\x1e" + "\x1d"
	assert.Equal(t, want, string(b))
	assert.Len(t, want, 65)
}

// A record written without a leader gets a book's, in UTF-8.
func TestISO2709WriterGivesALeader(t *testing.T) {
	t.Parallel()
	b, err := marc.MarshalISO2709(marc.Record{Fields: []marc.Field{marc.ControlField("001", "x")}})
	require.NoError(t, err)
	assert.Equal(t, "00040nam a2200037   4500", string(b[:24]))
}

// A bad record is refused with its reason, where it is and its control number when that can
// be read, and the record after it is read: one bad record costs only itself.
func TestISO2709RefusesABadRecordAndReadsTheNext(t *testing.T) {
	t.Parallel()
	good := rawRecord("bad", 'a', rawField{"245", "10\x1faDune\x1fbA novel"})
	patch := func(at int, with string) []byte {
		b := bytes.Clone(good)
		copy(b[at:], with)
		return b
	}
	// The 245's entry is the second; its start is at 24+12+7.
	entry245 := marc.LeaderLength + 12
	for _, c := range []struct {
		name   string
		bad    []byte
		reason marc.Reason
		id     string // the control number the error names
	}{
		{"record length not digits", patch(2, "x"), marc.ReasonBadLeader, "bad"},
		{"record length shorter than a leader", patch(0, "00010"), marc.ReasonBadLeader, "bad"},
		{"record length past the record terminator", patch(0, fmt.Sprintf("%05d", len(good)+7)), marc.ReasonBadLeader, "bad"},
		{"record length short of the record terminator", patch(0, fmt.Sprintf("%05d", len(good)-5)), marc.ReasonNoRecordTerminator, "bad"},
		{"no record terminator", patch(len(good)-1, "x"), marc.ReasonNoRecordTerminator, "bad"},
		{"leader not ASCII", patch(5, "\xc3"), marc.ReasonBadLeader, "bad"},
		{"base address not digits", patch(13, "x"), marc.ReasonBadLeader, ""},
		{"base address past the end", patch(12, "99999"), marc.ReasonBadDirectory, ""},
		{"base address inside the leader", patch(12, "00010"), marc.ReasonBadDirectory, ""},
		{"base address off the directory's end", patch(12, fmt.Sprintf("%05d", marc.LeaderLength+2*12)), marc.ReasonBadDirectory, ""},
		{"character coding neither a nor blank", patch(9, "z"), marc.ReasonBadLeader, "bad"},
		{"directory not whole entries", handMade("001000400000"+"2450", "bad\x1e"), marc.ReasonBadDirectory, "bad"},
		{"entry past the record", patch(entry245+7, "00900"), marc.ReasonBadDirectory, "bad"},
		{"entry longer than the data", patch(entry245+3, "0900"), marc.ReasonBadDirectory, "bad"},
		{"entry length not digits", patch(entry245+3, "00x0"), marc.ReasonBadDirectory, "bad"},
		{"entry tag not letters or digits", patch(entry245, "2#5"), marc.ReasonBadDirectory, "bad"},
		{"entry of length zero", patch(entry245+3, "0000"), marc.ReasonNoFieldTerminator, "bad"},
		{"field without its terminator", bytes.Replace(good, []byte("novel\x1e"), []byte("novelx"), 1), marc.ReasonNoFieldTerminator, "bad"},
		{"invalid UTF-8", rawRecord("bad", 'a', rawField{"245", "10\x1faDune \xff\xfe"}), marc.ReasonInvalidUTF8, "bad"},
		{"a UTF-8 sequence cut short", rawRecord("bad", 'a', rawField{"245", "10\x1fa\xc5"}), marc.ReasonInvalidUTF8, "bad"},
		{"MARC-8 outside ASCII", rawRecord("bad", ' ', rawField{"245", "10\x1faLo\xb1d\xe2z"}), marc.ReasonMARC8, "bad"},
		{"MARC-8 escape to Cyrillic", rawRecord("bad", ' ', rawField{"245", "10\x1fa\x1b(NLIR\x1b(B"}), marc.ReasonMARC8, "bad"},
		{"data field without indicators", rawRecord("bad", 'a', rawField{"245", "1"}), marc.ReasonBadField, "bad"},
		{"text before the first subfield", rawRecord("bad", 'a', rawField{"245", "10Dune"}), marc.ReasonBadField, "bad"},
		{"subfield without a code", rawRecord("bad", 'a', rawField{"245", "10\x1faDune\x1f"}), marc.ReasonBadField, "bad"},
		{"subfield code blank", rawRecord("bad", 'a', rawField{"245", "10\x1f Dune"}), marc.ReasonBadField, "bad"},
		{"indicator a control character", rawRecord("bad", 'a', rawField{"245", "1\x01\x1faDune"}), marc.ReasonBadField, "bad"},
		{"field terminator inside a field", rawRecord("bad", 'a', rawField{"245", "10\x1faDu\x1ene"}), marc.ReasonBadField, "bad"},
		{"delimiter in a control field", rawRecord("bad", 'a', rawField{"005", "2024\x1fa"}), marc.ReasonBadField, "bad"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			first, last := iso(t, small("g1")), iso(t, small("g2"))
			input := concat(first, c.bad, last)
			_, results := readAll(t, marc.NewISO2709Reader(bytes.NewReader(input)), len(input))
			require.Equal(t, []string{"g1", "!" + string(c.reason), "g2"}, outline(results))
			re := results[1].err
			assert.Equal(t, 2, re.Ordinal)
			assert.Equal(t, int64(len(first)), re.Offset)
			assert.Equal(t, c.id, re.ControlNumber)
			assert.False(t, re.Last)
			assert.NotEmpty(t, re.Message)
			assert.Contains(t, re.Error(), string(c.reason))
		})
	}
}

// handMade is a record with the directory and data given, its lengths worked out.
func handMade(directory, data string) []byte {
	base := marc.LeaderLength + len(directory) + 1
	total := base + len(data) + 1
	return []byte(fmt.Sprintf("%05dnam a22%05d i 4500", total, base) + directory + "\x1e" + data + "\x1d")
}

// A refusal for MARC-8 says how to convert the file.
func TestISO2709MARC8SaysHowToConvert(t *testing.T) {
	t.Parallel()
	input := rawRecord("m8", ' ', rawField{"245", "10\x1faLo\xb1d\xe2z"})
	_, err := marc.NewISO2709Reader(bytes.NewReader(input)).Next()
	require.Equal(t, marc.ReasonMARC8, marc.ReasonOf(err))
	assert.Contains(t, err.Error(), "yaz-marcdump -f MARC-8 -t UTF-8 -o marc -l 9=97 in.mrc > out.mrc")
}

// MARC-8 that is all ASCII is the same bytes in UTF-8: it is read, its leader as it was.
func TestISO2709ReadsMARC8ThatIsASCII(t *testing.T) {
	t.Parallel()
	input := rawRecord("m8", ' ', rawField{"245", "10\x1faDune :\x1fba novel"})
	rec, err := marc.NewISO2709Reader(bytes.NewReader(input)).Next()
	require.NoError(t, err)
	assert.Equal(t, byte(' '), rec.Leader[9])
	f, ok := rec.Field("245")
	require.True(t, ok)
	assert.Equal(t, []string{"Dune :", "a novel"}, f.Values('a', 'b'))
}

// A file cut in the middle of its last record: that record is refused as truncated, with its
// control number when the cut left its 001, and nothing follows.
func TestISO2709TruncatedLastRecord(t *testing.T) {
	t.Parallel()
	last := iso(t, dune())
	for _, c := range []struct {
		name string
		cut  int
		id   string
	}{
		{"in the data", len(last) - 20, "ocm00012345"},
		{"in the directory", 40, ""},
		{"in the record length", 3, ""},
		{"before the record terminator", len(last) - 1, "ocm00012345"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			first := iso(t, small("g1"))
			input := concat(first, last[:c.cut])
			_, results := readAll(t, marc.NewISO2709Reader(bytes.NewReader(input)), len(input))
			require.Equal(t, []string{"g1", "!truncated"}, outline(results))
			assert.Equal(t, c.id, results[1].err.ControlNumber)
			assert.Equal(t, int64(len(first)), results[1].err.Offset)
			assert.True(t, results[1].err.Last)
			assert.Contains(t, results[1].err.Error(), "nothing after it is read")
		})
	}
}

// Line ends and blanks between records, which some exports put there, are skipped.
func TestISO2709SkipsBlanksBetweenRecords(t *testing.T) {
	t.Parallel()
	input := concat([]byte("\r\n"), iso(t, small("1")), []byte("\n"), iso(t, small("2")), []byte(" \r\n\t"))
	_, results := readAll(t, marc.NewISO2709Reader(bytes.NewReader(input)), len(input))
	assert.Equal(t, []string{"1", "2"}, outline(results))
}

// Garbage with no record terminator costs one refusal and ends the input; an empty input is
// no records.
func TestISO2709Garbage(t *testing.T) {
	t.Parallel()
	garbage := []byte(strings.Repeat("not a MARC record at all. ", 10000))
	_, results := readAll(t, marc.NewISO2709Reader(bytes.NewReader(garbage)), len(garbage))
	assert.Equal(t, []string{"!bad_leader"}, outline(results))

	_, results = readAll(t, marc.NewISO2709Reader(bytes.NewReader(nil)), 0)
	assert.Empty(t, results)
}

// The longest record ISO 2709 holds is written and read; one byte more is refused by the
// writer, which writes nothing of it.
func TestISO2709RecordLengthLimit(t *testing.T) {
	t.Parallel()
	rec := marc.Record{Leader: bookLeader, Fields: []marc.Field{marc.ControlField("001", "big")}}
	// 24 + 12*(1+n) + 1 + 4 + n*(2+2+9000+1) + 1 = 99999 for the text below.
	for len(rec.Fields) < 11 {
		rec.Fields = append(rec.Fields, marc.DataField("500", ' ', ' ', sf('a', strings.Repeat("x", 9000))))
	}
	b, err := marc.MarshalISO2709(rec)
	require.NoError(t, err)
	short := marc.MaxRecordLength - len(b)
	rec.Fields = append(rec.Fields, marc.DataField("500", ' ', ' ', sf('a', strings.Repeat("y", short-12-5))))
	b, err = marc.MarshalISO2709(rec)
	require.NoError(t, err)
	require.Len(t, b, marc.MaxRecordLength)
	got, err := marc.NewISO2709Reader(bytes.NewReader(b)).Next()
	require.NoError(t, err)
	requireSameRecord(t, rec, got)

	rec.Fields[len(rec.Fields)-1].Subfields[0].Value += "y"
	var out bytes.Buffer
	err = marc.NewISO2709Writer(&out).Write(rec)
	require.ErrorIs(t, err, marc.ErrUnwritable)
	assert.Zero(t, out.Len())
}
