package marc_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/marc"
	"library/internal/testkit/yaztest"
)

// The package is checked against a MARC implementation it did not write: yaz-marcdump, of
// Index Data's YAZ toolkit (Debian's package yaz), which libraries have used for decades. It
// reads what the writers write, writes what the readers read, and its files in testdata/yaz
// were written by it:
//
//	yaz-marcdump -i line -o marc books.txt > books.mrc
//	yaz-marcdump -i line -o marcxml books.txt > books.xml
//	yaz-marcdump -i line -o marc marc8.txt > marc8.mrc
//
// Without yaz-marcdump these tests fail when CI is set, and are skipped only when it is not.

func yazMarcdump(t *testing.T) string { return yaztest.Path(t) }

// runYaz runs yaz-marcdump and returns what it wrote, requiring that it succeeded and wrote
// nothing on its standard error.
func runYaz(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(yazMarcdump(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "yaz-marcdump %s: %s", strings.Join(args, " "), stderr.String())
	require.Empty(t, stderr.String(), "yaz-marcdump %s wrote on its standard error", strings.Join(args, " "))
	require.NotEmpty(t, stdout.Bytes(), "yaz-marcdump %s wrote nothing", strings.Join(args, " "))
	return stdout.Bytes()
}

// forYaz are records in many shapes. Their text has no carriage return: yaz-marcdump writes it
// raw in MARCXML, where any XML reader reads CR LF as LF.
func forYaz() []marc.Record {
	d := dune()
	for i, f := range d.Fields {
		if f.Tag == "500" {
			d.Fields[i].Subfields[0].Value = "Line one\nline two\twith a tab."
		}
	}
	return []marc.Record{d, small("2"), {Leader: "00000cjm a2200000 a 4500", Fields: []marc.Field{
		marc.ControlField("001", "sound-1"),
		marc.ControlField("007", "sd fsngnnmmned"),
		marc.DataField("028", '0', '2', sf('a', "SRC-1"), sf('b', "Ōtani & Sons <Records>")),
		marc.DataField("245", '0', '4', sf('a', "The 'quoted' \"title\""), sf('h', ""), sf('6', "880-01")),
		marc.DataField("880", '0', '0', sf('6', "245-01/$1"), sf('a', "東京 Łódź Ελληνικά עברית العربية 😀")),
		marc.DataField("9XX", '9', '9', sf('z', "a local tag"), sf('0', "(uri)http://example.org/x?a=1&b=2")),
	}}}
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// yaz-marcdump reads the ISO 2709 the writer writes as the records written: to MARCXML, which
// the reader reads back as they were, and to ISO 2709, byte for byte what the writer wrote.
func TestYazReadsWhatTheISO2709WriterWrites(t *testing.T) {
	t.Parallel()
	want := forYaz()
	ours := iso(t, want...)
	file := writeFile(t, "ours.mrc", ours)

	asXML := runYaz(t, "-i", "marc", "-o", "marcxml", file)
	got, results := readAll(t, marc.NewXMLReader(bytes.NewReader(asXML)), len(asXML))
	require.Len(t, got, len(want), "%v", outline(results))
	for i := range want {
		requireSameRecord(t, want[i], got[i])
	}

	assert.Equal(t, ours, runYaz(t, "-i", "marc", "-o", "marc", file))
}

// yaz-marcdump reads the MARCXML the writer writes, and writes it as ISO 2709 byte for byte as
// the package's own writer does; the reader reads that back as the records written.
func TestYazReadsWhatTheMARCXMLWriterWrites(t *testing.T) {
	t.Parallel()
	want := forYaz()
	file := writeFile(t, "ours.xml", marcXML(t, want...))

	asISO := runYaz(t, "-i", "marcxml", "-o", "marc", file)
	assert.Equal(t, iso(t, want...), asISO)
	got, results := readAll(t, marc.NewISO2709Reader(bytes.NewReader(asISO)), len(asISO))
	require.Len(t, got, len(want), "%v", outline(results))
	for i := range want {
		requireSameRecord(t, want[i], got[i])
	}
}

// What yaz-marcdump writes today from testdata/yaz/books.txt reads as the files it wrote there,
// which TestReadsFilesYazWrote reads without it.
func TestYazWritesWhatTheReaderReads(t *testing.T) {
	t.Parallel()
	source := filepath.Join("testdata", "yaz", "books.txt")
	committed := readFile(t, "books.mrc")
	for _, format := range []string{"marc", "marcxml"} {
		out := runYaz(t, "-i", "line", "-o", format, source)
		got, results := readAll(t, mustReader(t, out), len(out))
		require.Len(t, got, 3, "%s: %v", format, outline(results))
		for i := range committed {
			requireSameRecord(t, committed[i], got[i])
		}
	}
}

// The command a MARC-8 refusal gives converts the file into one the reader reads, its
// characters in UTF-8.
func TestYazConvertsMARC8AsTheRefusalSays(t *testing.T) {
	t.Parallel()
	args := strings.Fields(strings.TrimSuffix(marc.Marc8Conversion, " > out.mrc"))
	require.Equal(t, "yaz-marcdump", args[0])
	require.Equal(t, "in.mrc", args[len(args)-1])
	args[len(args)-1] = filepath.Join("testdata", "yaz", "marc8.mrc")
	out := runYaz(t, args[1:]...)

	got, results := readAll(t, marc.NewISO2709Reader(bytes.NewReader(out)), len(out))
	require.Equal(t, []string{"m8-ascii", "m8-ansel"}, outline(results))
	assert.Equal(t, byte('a'), got[1].Leader[9])
	f, _ := got[1].Field("245")
	assert.Equal(t, "Lo\u0301dz\u0301 Ł", f.Subfield('a'), "ANSEL's combining acute after its letter, and its Ł")
}

func readFile(t *testing.T, name string) []marc.Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "yaz", name))
	require.NoError(t, err)
	recs, results := readAll(t, mustReader(t, b), len(b))
	require.Len(t, recs, len(results), "%s: %v", name, outline(results))
	return recs
}

// The files yaz-marcdump wrote read as their source says, in either format; this test needs no
// yaz-marcdump.
func TestReadsFilesYazWrote(t *testing.T) {
	t.Parallel()
	fromISO, fromXML := readFile(t, "books.mrc"), readFile(t, "books.xml")
	require.Len(t, fromISO, 3)
	for i := range fromISO {
		requireSameRecord(t, fromISO[i], fromXML[i])
	}
	dune, tokyo, lodz := fromISO[0], fromISO[1], fromISO[2]
	assert.Equal(t, "00755nam a2200229 i 4500", dune.Leader)
	assert.Equal(t, []string{"ocm00012345", "jp-0042", "pl-7"}, []string{dune.ControlNumber(), tokyo.ControlNumber(), lodz.ControlNumber()})
	title, _ := dune.Field("245")
	assert.Equal(t, marc.DataField("245", '1', '0', sf('a', "Dune :"), sf('b', "a novel /"), sf('c', "Frank Herbert.")), title)
	assert.Len(t, dune.All("952"), 3)
	assert.Equal(t, []string{"31234000123456", "31234000123457"}, valuesOf(dune.All("952"), 'p'))
	assert.Equal(t, "750101s1965    nyu           000 1 eng d", dune.Control("008"))
	title, _ = tokyo.Field("245")
	assert.Equal(t, "東京物語 =", title.Subfield('a'))
	subjects := lodz.All("650")
	require.Len(t, subjects, 3)
	assert.Equal(t, "Cafe\u0301s", subjects[2].Subfield('a'), "a combining acute kept as it was")
	assert.Equal(t, byte('7'), subjects[0].Ind2)
}

func valuesOf(fields []marc.Field, code byte) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Values(code)...)
	}
	return out
}

// yaz-marcdump's MARC-8 file: the record that is all ASCII is read, the other refused.
func TestReadsMARC8FileYazWrote(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "yaz", "marc8.mrc"))
	require.NoError(t, err)
	_, results := readAll(t, marc.NewISO2709Reader(bytes.NewReader(b)), len(b))
	require.Equal(t, []string{"m8-ascii", "!marc8"}, outline(results))
	assert.Equal(t, "m8-ansel", results[1].err.ControlNumber)
}
