package marc_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/marc"
)

// What the MARCXML writer writes, the reader reads back, the same as from ISO 2709.
func TestMARCXMLReadsBackWhatItWrites(t *testing.T) {
	t.Parallel()
	want := []marc.Record{dune(), small("2"), dune()}
	input := marcXML(t, want...)
	for name, r := range map[string]func() *marc.Reader{
		"all at once":     func() *marc.Reader { return marc.NewXMLReader(bytes.NewReader(input)) },
		"one byte a read": func() *marc.Reader { return marc.NewXMLReader(iotest.OneByteReader(bytes.NewReader(input))) },
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
	fromISO, _ := readAll(t, marc.NewISO2709Reader(bytes.NewReader(iso(t, want...))), 1<<20)
	fromXML, _ := readAll(t, marc.NewXMLReader(bytes.NewReader(input)), len(input))
	assert.Equal(t, fromISO, fromXML, "the same records, leaders and all, from either format")
}

// The writer writes MARCXML as the Library of Congress's examples do.
func TestMARCXMLWriterOutput(t *testing.T) {
	t.Parallel()
	got := marcXML(t, marc.Record{Leader: bookLeader, Fields: []marc.Field{
		marc.ControlField("001", "x<1>"),
		marc.DataField("245", '1', '"', sf('a', "Tom & Jerry"), sf('&', "Łódź")),
	}})
	want := `<?xml version="1.0" encoding="UTF-8"?>
<collection xmlns="http://www.loc.gov/MARC21/slim">
<record>
  <leader>00080nam a2200049 i 4500</leader>
  <controlfield tag="001">x&lt;1&gt;</controlfield>
  <datafield tag="245" ind1="1" ind2="&#34;">
    <subfield code="a">Tom &amp; Jerry</subfield>
    <subfield code="&amp;">Łódź</subfield>
  </datafield>
</record>
</collection>
`
	assert.Equal(t, want, string(got))
}

// A collection with no records is one still, and reads as none.
func TestMARCXMLWriterEmptyCollection(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := marc.NewXMLWriter(&b)
	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "a second Close does nothing")
	assert.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<collection xmlns="http://www.loc.gov/MARC21/slim">`+"\n</collection>\n", b.String())
	require.Error(t, w.Write(small("1")), "no record after the end of the collection")
	_, results := readAll(t, mustReader(t, b.Bytes()), b.Len())
	assert.Empty(t, results)
}

// A record the writer refuses writes nothing, and the collection goes on.
func TestMARCXMLWriterRefusesWhatXMLCannotCarry(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := marc.NewXMLWriter(&b)
	require.NoError(t, w.Write(small("1")))
	before := b.Len()
	bad := small("2")
	bad.Fields[1].Subfields[0].Value = "bell \x07"
	require.ErrorIs(t, w.Write(bad), marc.ErrUnwritable)
	assert.Equal(t, before, b.Len())
	require.NoError(t, w.Write(small("3")))
	require.NoError(t, w.Close())
	_, results := readAll(t, marc.NewXMLReader(&b), 1<<20)
	assert.Equal(t, []string{"1", "3"}, outline(results))
}

const recordG1 = `<record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">g1</controlfield>
  <datafield tag="245" ind1="0" ind2="0"><subfield code="a">One</subfield></datafield></record>`

const recordG2 = `<record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">g2</controlfield></record>`

// MARCXML as others write it: without a namespace, with a prefix, one record alone, inside an
// OAI-PMH response whose own record elements are not MARC's, with comments and elements the
// reader does not know, and with a byte order mark.
func TestMARCXMLAsOthersWriteIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, input string
		want        []string
	}{
		{"no namespace", `<collection>` + recordG1 + recordG2 + `</collection>`, []string{"g1", "g2"}},
		{"a record alone", `<?xml version="1.0"?>` + "\n" + strings.Replace(recordG1, "<record>", `<record xmlns="http://www.loc.gov/MARC21/slim">`, 1), []string{"g1"}},
		{"a prefix", `<marc:collection xmlns:marc="http://www.loc.gov/MARC21/slim"><marc:record><marc:leader>00000nam a2200000 i 4500</marc:leader>` +
			`<marc:controlfield tag="001">p1</marc:controlfield></marc:record></marc:collection>`, []string{"p1"}},
		{"OAI-PMH", `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords><record><header><identifier>x</identifier></header>` +
			`<metadata><record xmlns="http://www.loc.gov/MARC21/slim"><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">o1</controlfield></record></metadata>` +
			`</record></ListRecords></OAI-PMH>`, []string{"o1"}},
		{"comments and unknown elements", `<collection><!-- exported --><note>x</note><record><leader>00000nam a2200000 i 4500</leader>` +
			`<extra><controlfield tag="001">no</controlfield></extra><controlfield tag="001">c<!-- x -->1</controlfield>` +
			`<datafield tag="245" ind1="1" ind2="0"><subfield code="a">A<i>b</i>c</subfield><other/></datafield></record></collection>`, []string{"c1"}},
		{"a byte order mark", "\xef\xbb\xbf<collection>" + recordG2 + "</collection>", []string{"g2"}},
		{"an element in another namespace is not MARC's", `<collection><x:record xmlns:x="urn:x"><leader>00000nam a2200000 i 4500</leader></x:record>` + recordG2 + `</collection>`, []string{"g2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := mustReader(t, []byte(c.input))
			assert.Equal(t, marc.MARCXML, r.Format())
			_, results := readAll(t, r, len(c.input))
			assert.Equal(t, c.want, outline(results))
		})
	}
}

// Indicators left out, or empty, are blanks; text inside unknown elements is left out.
func TestMARCXMLFieldsAsRead(t *testing.T) {
	t.Parallel()
	input := `<collection><record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">c1</controlfield>` +
		`<datafield tag="245" ind2=""><subfield code="a">A<i>b</i>c</subfield><subfield code="a"> two&#xA;lines </subfield></datafield></record></collection>`
	recs, _ := readAll(t, mustReader(t, []byte(input)), len(input))
	require.Len(t, recs, 1)
	assert.Equal(t, []marc.Field{
		marc.ControlField("001", "c1"),
		marc.DataField("245", ' ', ' ', sf('a', "Ac"), sf('a', " two\nlines ")),
	}, recs[0].Fields)
}

// A record whose elements are wrong is refused, and the next is read.
func TestMARCXMLRefusesABadRecordAndReadsTheNext(t *testing.T) {
	t.Parallel()
	const leader = `<leader>00000nam a2200000 i 4500</leader>`
	const id = `<controlfield tag="001">bad</controlfield>`
	for _, c := range []struct {
		name, record string
		reason       marc.Reason
	}{
		{"no leader", `<record>` + id + `</record>`, marc.ReasonBadLeader},
		{"two leaders", `<record>` + leader + id + leader + `</record>`, marc.ReasonBadLeader},
		{"a short leader", `<record><leader>00000nam</leader>` + id + `</record>`, marc.ReasonBadLeader},
		{"a leader not ASCII", `<record><leader>00000nam a2200000 i 450ø</leader>` + id + `</record>`, marc.ReasonBadLeader},
		{"a control field with a data field's tag", `<record>` + leader + id + `<controlfield tag="245">x</controlfield></record>`, marc.ReasonBadField},
		{"a data field with a control field's tag", `<record>` + leader + id + `<datafield tag="008" ind1=" " ind2=" "/></record>`, marc.ReasonBadField},
		{"a tag not three letters or digits", `<record>` + leader + id + `<datafield tag="24" ind1=" " ind2=" "/></record>`, marc.ReasonBadField},
		{"an indicator of two characters", `<record>` + leader + id + `<datafield tag="245" ind1="10" ind2=" "/></record>`, marc.ReasonBadField},
		{"a subfield code of two characters", `<record>` + leader + id + `<datafield tag="245" ind1="1" ind2="0"><subfield code="ab">x</subfield></datafield></record>`, marc.ReasonBadField},
		{"a subfield code missing", `<record>` + leader + id + `<datafield tag="245" ind1="1" ind2="0"><subfield>x</subfield></datafield></record>`, marc.ReasonBadField},
		{"a subfield code of one character, not ASCII", `<record>` + leader + id + `<datafield tag="245" ind1="1" ind2="0"><subfield code="é">x</subfield></datafield></record>`, marc.ReasonBadField},
		{"a delimiter in the text", `<record>` + leader + id + `<datafield tag="245" ind1="1" ind2="0"><subfield code="a">x` + "\x1f" + `</subfield></datafield></record>`, marc.ReasonBadXML},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			input := "<collection>\n" + recordG1 + "\n" + c.record + "\n" + recordG2 + "\n</collection>"
			_, results := readAll(t, marc.NewXMLReader(strings.NewReader(input)), len(input))
			if c.reason == marc.ReasonBadXML { // XML 1.0 has no such character: nothing after it can be read
				require.Equal(t, []string{"g1", "!bad_xml"}, outline(results))
				return
			}
			require.Equal(t, []string{"g1", "!" + string(c.reason), "g2"}, outline(results))
			re := results[1].err
			assert.Equal(t, 2, re.Ordinal)
			before := "<collection>\n" + recordG1 + "\n"
			assert.Equal(t, strings.Count(before, "\n")+1, re.Line)
			assert.Equal(t, int64(len(before)), re.Offset)
			assert.Equal(t, "bad", re.ControlNumber)
			assert.False(t, re.Last)
		})
	}
}

// XML the decoder cannot read past ends the reading, with the reason, after the records
// before it.
func TestMARCXMLThatCannotBeReadPast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, tail string
		reason     marc.Reason
		id         string
	}{
		{"cut in a record", `<record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">cut</controlfield><datafield tag="245" ind1="1" ind2="0"><subfi`, marc.ReasonTruncated, "cut"},
		{"cut after a record", recordG2, marc.ReasonTruncated, ""},
		{"not well-formed", `<record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">bad</controlfield><datafield tag="245"></record>` + recordG2 + `</collection>`, marc.ReasonBadXML, "bad"},
		{"not UTF-8", `<record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">bad</controlfield><datafield tag="245" ind1="1" ind2="0"><subfield code="a">Lo` + "\xb1" + `dz</subfield></datafield></record>` + recordG2 + `</collection>`, marc.ReasonInvalidUTF8, "bad"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			input := "<collection>" + recordG1 + c.tail
			_, results := readAll(t, marc.NewXMLReader(strings.NewReader(input)), len(input))
			want := []string{"g1", "!" + string(c.reason)}
			if c.name == "cut after a record" {
				want = []string{"g1", "g2", "!truncated"}
			}
			require.Equal(t, want, outline(results))
			assert.Equal(t, c.id, results[len(results)-1].err.ControlNumber)
			assert.True(t, results[len(results)-1].err.Last)
		})
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A record larger than MaxXMLRecord is refused once the reader has read that much of it, not
// after reading it all; the reading ends there.
func TestMARCXMLRecordTooLarge(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 8*marc.MaxXMLRecord)
	input := "<collection>" + recordG1 + `<record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">huge</controlfield>` +
		`<datafield tag="500" ind1=" " ind2=" "><subfield code="a">` + huge + `</subfield></datafield></record>` + recordG2 + `</collection>`
	src := &countingReader{r: strings.NewReader(input)}
	_, results := readAll(t, marc.NewXMLReader(src), len(input))
	require.Equal(t, []string{"g1", "!too_large"}, outline(results))
	assert.Equal(t, "huge", results[1].err.ControlNumber)
	assert.Less(t, src.n, 2*marc.MaxXMLRecord, "read no more than about one record's budget")

	// The budget is each record's, and each stretch's between two: records and stretches just
	// under it, one after another, are read.
	long := func(id string) string {
		return `<record><leader>00000nam a2200000 i 4500</leader><controlfield tag="001">` + id + `</controlfield>` +
			`<datafield tag="500" ind1=" " ind2=" "><subfield code="a">` + strings.Repeat("y", marc.MaxXMLRecord*7/10) + `</subfield></datafield></record>`
	}
	gap := "<!--" + strings.Repeat(" ", marc.MaxXMLRecord*7/10) + "-->"
	input = "<collection>" + gap + long("l1") + gap + long("l2") + long("l3") + "</collection>"
	_, results = readAll(t, marc.NewXMLReader(strings.NewReader(input)), len(input))
	require.Equal(t, []string{"l1", "l2", "l3"}, outline(results))

	// Between records too: a document that is not MARC is not read whole.
	junk := "<doc><p>" + huge + "</p></doc>"
	src = &countingReader{r: strings.NewReader(junk)}
	_, results = readAll(t, marc.NewXMLReader(src), len(junk))
	require.Equal(t, []string{"!too_large"}, outline(results))
	assert.Less(t, src.n, 2*marc.MaxXMLRecord)
}

// MARCXML is UTF-8: a declaration of UTF-8 under another name is read, any other encoding or
// XML version is refused, and nothing after it is read.
func TestMARCXMLDeclarations(t *testing.T) {
	t.Parallel()
	body := "<collection>" + recordG1 + "</collection>"
	for _, c := range []struct {
		declaration string
		want        []string
	}{
		{`<?xml version="1.0" encoding="UTF-8"?>`, []string{"g1"}},
		{`<?xml version="1.0" encoding="utf8"?>`, []string{"g1"}},
		{`<?xml version="1.0" encoding="US-ASCII"?>`, []string{"g1"}},
		{`<?xml version="1.0" encoding="ISO-8859-1"?>`, []string{"!bad_xml"}},
		{`<?xml version="1.1"?>`, []string{"!bad_xml"}},
	} {
		input := c.declaration + "\n" + body
		_, results := readAll(t, marc.NewXMLReader(strings.NewReader(input)), len(input))
		assert.Equal(t, c.want, outline(results), c.declaration)
	}
}
