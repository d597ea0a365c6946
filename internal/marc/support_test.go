package marc_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/marc"
)

func sf(code byte, value string) marc.Subfield { return marc.Subfield{Code: code, Value: value} }

// bookLeader is a book's leader, UTF-8, as the writers write it but for its lengths.
const bookLeader = "00000nam a2200000 i 4500"

// dune is a record with a bit of everything: control fields, indicators, repeated fields and
// subfields, and text in several scripts, with a combining character.
func dune() marc.Record {
	return marc.Record{Leader: bookLeader, Fields: []marc.Field{
		marc.ControlField("001", "ocm00012345"),
		marc.ControlField("003", "OCoLC"),
		marc.ControlField("008", "750101s1965    nyu           000 1 eng d"),
		marc.DataField("020", ' ', ' ', sf('a', "0441013597 (pbk.)")),
		marc.DataField("020", ' ', ' ', sf('a', "9780441013593"), sf('q', "hardcover")),
		marc.DataField("100", '1', ' ', sf('a', "Herbert, Frank,"), sf('d', "1920-1986.")),
		marc.DataField("245", '1', '0', sf('a', "Dune :"), sf('b', "a novel /"), sf('c', "Frank Herbert.")),
		marc.DataField("650", ' ', '0', sf('a', "Łódź (Poland)"), sf('x', "東京"), sf('x', "Cafe\u0301 & <bar> \"quoted\"")),
		marc.DataField("650", ' ', '7', sf('a', "Ørsted, H. C."), sf('2', "fast")),
		marc.DataField("500", ' ', ' ', sf('a', "Line one\nline two\twith a tab\r\nand CRLF.")),
		marc.DataField("952", ' ', ' ', sf('p', "31234000123456"), sf('y', "BOOK"), sf('v', "12.50")),
	}}
}

// small is a record with only a control number and a title, told apart by id.
func small(id string) marc.Record {
	return marc.Record{Leader: bookLeader, Fields: []marc.Field{
		marc.ControlField("001", id),
		marc.DataField("245", '0', '0', sf('a', "Title "+id)),
	}}
}

func iso(t testing.TB, recs ...marc.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	w := marc.NewISO2709Writer(&b)
	for _, r := range recs {
		require.NoError(t, w.Write(r))
	}
	return b.Bytes()
}

func marcXML(t testing.TB, recs ...marc.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	w := marc.NewXMLWriter(&b)
	for _, r := range recs {
		require.NoError(t, w.Write(r))
	}
	require.NoError(t, w.Close())
	return b.Bytes()
}

// result is what one call of Next gave: a record's control number, or an error's reason.
type result struct {
	id     string
	reason marc.Reason
	err    *marc.RecordError
}

// readAll reads r to its end, and fails the test if it takes more calls than the input has
// bytes (a reader that does not move on), or if an error is neither a RecordError nor io.EOF.
func readAll(t testing.TB, r *marc.Reader, inputLength int) ([]marc.Record, []result) {
	t.Helper()
	var recs []marc.Record
	var results []result
	for range inputLength + 2 {
		rec, err := r.Next()
		var re *marc.RecordError
		switch {
		case errors.Is(err, io.EOF):
			return recs, results
		case errors.As(err, &re):
			results = append(results, result{reason: re.Reason, err: re})
			if re.Last {
				_, err := r.Next()
				require.ErrorIs(t, err, io.EOF, "the call after the Last refusal")
				return recs, results
			}
		case err != nil:
			t.Fatalf("an error that is neither a RecordError nor io.EOF: %v", err)
		default:
			recs = append(recs, rec)
			results = append(results, result{id: rec.ControlNumber()})
		}
	}
	t.Fatalf("still reading after %d calls on %d bytes", inputLength+2, inputLength)
	return nil, nil
}

// outline is the results as text, for comparing: "g1", "!bad_leader", ...
func outline(results []result) []string {
	out := make([]string, len(results))
	for i, r := range results {
		if r.reason != "" {
			out[i] = "!" + string(r.reason)
		} else {
			out[i] = r.id
		}
	}
	return out
}

// requireSameRecord checks that got is want as read back: the same fields, and the same
// leader but for the lengths and base address the writer works out.
func requireSameRecord(t testing.TB, want, got marc.Record) {
	t.Helper()
	require.Equal(t, withoutLengths(want.Leader), withoutLengths(got.Leader), "leader")
	require.Equal(t, want.Fields, got.Fields)
}

func withoutLengths(leader string) string {
	if len(leader) != marc.LeaderLength {
		return leader
	}
	return "....." + leader[5:12] + "....." + leader[17:]
}

// rawField is a field's bytes in the data area, its terminator left to rawRecord.
type rawField struct{ tag, content string }

// rawRecord builds ISO 2709 bytes by hand, with a right directory, lengths and terminators,
// for records whose fields the writer would refuse. leader09 is the character coding.
func rawRecord(id string, leader09 byte, fields ...rawField) []byte {
	fields = append([]rawField{{"001", id}}, fields...)
	var dir, data bytes.Buffer
	for _, f := range fields {
		fmt.Fprintf(&dir, "%s%04d%05d", f.tag, len(f.content)+1, data.Len())
		data.WriteString(f.content)
		data.WriteByte(0x1E)
	}
	base := marc.LeaderLength + dir.Len() + 1
	total := base + data.Len() + 1
	leader := fmt.Sprintf("%05dnam %c22%05d i 4500", total, leader09, base)
	return append([]byte(leader+dir.String()+"\x1e"+data.String()), 0x1D)
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
