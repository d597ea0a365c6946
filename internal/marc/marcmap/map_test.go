package marcmap_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/marc"
	"library/internal/marc/marcmap"
)

func sf(code byte, value string) marc.Subfield { return marc.Subfield{Code: code, Value: value} }

func df(tag string, ind1, ind2 byte, subfields ...marc.Subfield) marc.Field {
	return marc.DataField(tag, ind1, ind2, subfields...)
}

// titled is a record with a control number and a title, and the fields given.
func titled(fields ...marc.Field) marc.Record {
	return marc.Record{Leader: "00000nam a2200000 i 4500", Fields: append([]marc.Field{
		marc.ControlField("001", "t1"),
		df("245", '1', '0', sf('a', "Dune")),
	}, fields...)}
}

func mapped(t *testing.T, r marc.Record) marcmap.Bib {
	t.Helper()
	b, err := marcmap.Map(r, marcmap.Holdings{})
	require.NoError(t, err)
	return b
}

// codes are the warnings' codes, in order.
func codes(b marcmap.Bib) []marcmap.Code {
	var out []marcmap.Code
	for _, w := range b.Warnings {
		out = append(out, w.Code)
	}
	return out
}

func TestTitleIsTheTitleStatementsAAndB(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		f245 marc.Field
		want string
	}{
		{"title and remainder, with ISBD", df("245", '1', '0', sf('a', "Dune :"), sf('b', "a novel /"), sf('c', "Frank Herbert.")), "Dune : a novel"},
		{"the remainder without its mark", df("245", '1', '0', sf('a', "Dune"), sf('b', "a novel")), "Dune : a novel"},
		{"a parallel title", df("245", '0', '0', sf('a', "東京物語 ="), sf('b', "Tokyo story /")), "東京物語 = Tokyo story"},
		{"a title alone, with a full stop", df("245", '1', '0', sf('a', "Łódź wczoraj i dziś.")), "Łódź wczoraj i dziś"},
		{"a title before a statement of responsibility", df("245", '1', '0', sf('a', "Dune /"), sf('c', "Frank Herbert.")), "Dune"},
		{"a title ending with ;", df("245", '1', '0', sf('a', "Dune ;"), sf('b', "Dune messiah.")), "Dune ; Dune messiah"},
		{"a remainder alone", df("245", '1', '0', sf('b', "a novel /")), "a novel"},
		{"an ellipsis", df("245", '1', '0', sf('a', "And then...")), "And then..."},
		{"combining characters kept as they are", df("245", '1', '0', sf('a', "Cafe\u0301s.")), "Cafe\u0301s"},
	} {
		r := marc.Record{Fields: []marc.Field{marc.ControlField("001", "x"), c.f245}}
		assert.Equal(t, c.want, mapped(t, r).Title, c.name)
	}
}

// A record that is no title is refused, with code no245.
func TestNoTitleIsARefusal(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]marc.Record{
		"no 245":              {Fields: []marc.Field{marc.ControlField("001", "x"), df("100", '1', ' ', sf('a', "Herbert, Frank"))}},
		"a 245 without $a $b": {Fields: []marc.Field{df("245", '1', '0', sf('c', "Frank Herbert."))}},
		"a 245 of marks only": {Fields: []marc.Field{df("245", '1', '0', sf('a', " / "), sf('b', ":"))}},
	} {
		_, err := marcmap.Map(r, marcmap.Holdings{})
		var refusal *marcmap.Refusal
		require.ErrorAs(t, err, &refusal, name)
		assert.Equal(t, marcmap.No245, refusal.Code, name)
		assert.Contains(t, err.Error(), "no245", name)
	}
}

func TestIdentity(t *testing.T) {
	t.Parallel()
	b := mapped(t, titled(marc.ControlField("003", "OCoLC")))
	assert.Equal(t, "OCoLC:t1", b.Identity())
	assert.Empty(t, b.Warnings)

	b = mapped(t, titled())
	assert.Equal(t, "t1", b.Identity())

	b = mapped(t, marc.Record{Fields: []marc.Field{df("245", '1', '0', sf('a', "Dune"))}})
	assert.Empty(t, b.Identity())
	assert.Equal(t, []marcmap.Code{marcmap.No001}, codes(b))
}

func TestAuthorsAre100And110And700InOrderOnce(t *testing.T) {
	t.Parallel()
	b := mapped(t, titled(
		df("100", '1', ' ', sf('a', "Herbert, Frank,"), sf('d', "1920-1986.")),
		df("110", '2', ' ', sf('a', "Ace Books, Inc.")),
		df("700", '1', ' ', sf('a', "Herbert, Frank."), sf('e', "author.")),
		df("710", '2', ' ', sf('a', "Not an author.")),
		df("700", '1', ' ', sf('a', "Tolkien, J. R. R.")),
		df("700", '1', ' ', sf('e', "no name")),
	))
	assert.Equal(t, []string{"Herbert, Frank", "Ace Books, Inc.", "Tolkien, J. R. R."}, b.Authors)
}

// ISBNs are ISBN-13s, their qualifiers taken off, each once; a wrong one is a warning.
func TestISBNs(t *testing.T) {
	t.Parallel()
	b := mapped(t, titled(
		df("020", ' ', ' ', sf('a', "0441013597 (pbk.)"), sf('c', "$9.99")),
		df("020", ' ', ' ', sf('a', "ISBN 978-0-441-01359-3")),
		df("020", ' ', ' ', sf('a', "0-14-143951-3 : alk. paper")),
		df("020", ' ', ' ', sf('a', "0441013598")),
		df("020", ' ', ' ', sf('a', "(pbk.)")),
		df("020", ' ', ' ', sf('z', "0441013598")),
		df("020", ' ', ' ', sf('a', "059035342x")),
	))
	assert.Equal(t, []string{"9780441013593", "9780141439518", "9780590353427"}, b.ISBNs)
	assert.Equal(t, "9780441013593", b.ISBN())
	require.Equal(t, []marcmap.Code{marcmap.BadISBN, marcmap.BadISBN}, codes(b))
	assert.Equal(t, "020", b.Warnings[0].Tag)
	assert.Contains(t, b.Warnings[0].Message, `"0441013598"`)
	assert.Contains(t, b.Warnings[0].Message, "check digit")
	assert.Contains(t, b.Warnings[1].Message, `"(pbk.)"`)
	assert.Empty(t, mapped(t, titled()).ISBN())
}

func TestPublisherAndYear(t *testing.T) {
	t.Parallel()
	const f008 = "750101s1965    nyu           000 1 eng d"
	for _, c := range []struct {
		name      string
		fields    []marc.Field
		publisher string
		year      int
	}{
		{"264 publication before 260 and the others", []marc.Field{
			df("264", ' ', '4', sf('c', "©1965")),
			df("260", ' ', ' ', sf('b', "Chilton,"), sf('c', "1965.")),
			df("264", ' ', '1', sf('a', "New York :"), sf('b', "Ace Books,"), sf('c', "[2005], ©1965.")),
		}, "Ace Books", 2005},
		{"260 without a 264 of publication", []marc.Field{
			df("264", ' ', '4', sf('c', "©1999")),
			df("260", ' ', ' ', sf('a', "東京 :"), sf('b', "松竹,"), sf('c', "1953.")),
		}, "松竹", 1953},
		{"a copyright date alone", []marc.Field{df("264", ' ', '4', sf('c', "©2015"))}, "", 2015},
		{"no date in $c: 008's", []marc.Field{marc.ControlField("008", f008), df("264", ' ', '1', sf('b', "Ace,"), sf('c', "[n.d.]"))}, "Ace", 1965},
		{"no publication statement: 008's", []marc.Field{marc.ControlField("008", f008)}, "", 1965},
		{"008 without a whole year", []marc.Field{marc.ControlField("008", "750101s19uu    nyu           000 1 eng d")}, "", 0},
		{"nothing", nil, "", 0},
	} {
		b := mapped(t, titled(c.fields...))
		assert.Equal(t, c.publisher, b.Publisher, c.name)
		assert.Equal(t, c.year, b.Year, c.name)
	}
}

func TestLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		fields []marc.Field
		want   string
	}{
		{"008", []marc.Field{marc.ControlField("008", "750101s1965    nyu           000 1 eng d"), df("041", '0', ' ', sf('a', "fre"))}, "eng"},
		{"008 blank: 041", []marc.Field{marc.ControlField("008", "750101s1965    nyu           000 1     d"), df("041", '0', ' ', sf('a', "fre"), sf('a', "ger"))}, "fre"},
		{"008 not filled in: 041 of old, codes run together", []marc.Field{marc.ControlField("008", "750101s1965    nyu           000 1 ||| d"), df("041", '1', ' ', sf('a', "engfre"))}, "eng"},
		{"008 short", []marc.Field{marc.ControlField("008", "750101s1965")}, ""},
		{"nothing", nil, ""},
	} {
		assert.Equal(t, c.want, mapped(t, titled(c.fields...)).Language, c.name)
	}
}

func TestSubjects(t *testing.T) {
	t.Parallel()
	b := mapped(t, titled(
		df("650", ' ', '0', sf('a', "Life on other planets"), sf('v', "Fiction.")),
		df("650", ' ', '0', sf('a', "Deserts."), sf('v', "Fiction.")),
		df("600", '1', '0', sf('a', "Not a subject here.")),
		df("651", ' ', '0', sf('a', "Arrakis (Imaginary place)."), sf('v', "Fiction.")),
		df("650", ' ', '7', sf('a', "Deserts"), sf('2', "fast")),
		df("650", ' ', '7', sf('a', "Łódź (Poland)"), sf('2', "fast")),
	))
	assert.Equal(t, []string{"Life on other planets", "Deserts", "Arrakis (Imaginary place)", "Łódź (Poland)"}, b.Subjects)
}
