package marcmap_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/marc"
	"library/internal/marc/marcmap"
)

// Koha's 952: each is a copy; one without a barcode, or with another's, is left out, and a
// price that is not an amount is a warning.
func TestKohaItemsAreCopies(t *testing.T) {
	t.Parallel()
	b := mapped(t, titled(
		df("952", ' ', ' ', sf('p', "31234000123456"), sf('y', "BOOK"), sf('o', "SF HER"), sf('v', "9.99"), sf('a', "MAIN")),
		df("952", ' ', ' ', sf('p', " 31234000123457 "), sf('y', "Book"), sf('o', "SF HER c.2"), sf('v', "12,50")),
		df("952", ' ', ' ', sf('y', "BOOK"), sf('o', "SF HER c.3")),
		df("952", ' ', ' ', sf('p', "31234000123456"), sf('y', "DVD")),
		df("952", ' ', ' ', sf('p', "31234000123458"), sf('v', "twelve")),
	))
	assert.Equal(t, []marcmap.Copy{
		{Barcode: "31234000123456", MaterialType: "book", CallNumber: "SF HER", PriceCents: 999},
		{Barcode: "31234000123457", MaterialType: "book", CallNumber: "SF HER c.2", PriceCents: 1250},
		{Barcode: "31234000123458"},
	}, b.Copies)
	require.Equal(t, []marcmap.Code{marcmap.NoBarcode, marcmap.DuplicateBarcode, marcmap.BadPrice}, codes(b))
	assert.Equal(t, "952", b.Warnings[0].Tag)
	assert.Contains(t, b.Warnings[0].Message, "952 #3")
	assert.Contains(t, b.Warnings[1].Message, "952 #4")
	assert.Contains(t, b.Warnings[2].Message, `"twelve" ($v)`)
}

// MARC 21's holdings: an 852 with a barcode is a copy, an 876 is one at the 852 it is linked
// to, and adds its price to the 852's copy of its barcode.
func TestStandardHoldingsAreCopies(t *testing.T) {
	t.Parallel()
	b := mapped(t, titled(
		df("852", '0', ' ', sf('8', "1"), sf('a', "Main"), sf('h', "PN1997"), sf('i', ".T65 1953")),
		df("852", '0', ' ', sf('8', "2"), sf('a', "Branch"), sf('h', "PN1997"), sf('i', "c.2"), sf('p', "39999000000003")),
		df("876", ' ', ' ', sf('8', "1.1"), sf('p', "39999000000001"), sf('c', "25.00")),
		df("876", ' ', ' ', sf('8', "1.2"), sf('p', "39999000000002"), sf('c', "JPY 3000")),
		df("876", ' ', ' ', sf('8', "2"), sf('p', "39999000000003"), sf('c', "30.00")),
		df("876", ' ', ' ', sf('8', "9"), sf('p', "39999000000004")),
		df("876", ' ', ' ', sf('8', "1"), sf('c', "5.00")),
		df("852", '0', ' ', sf('a', "Stacks"), sf('h', "PN1997")),
	))
	assert.Equal(t, []marcmap.Copy{
		{Barcode: "39999000000003", CallNumber: "PN1997 c.2", PriceCents: 3000},
		{Barcode: "39999000000001", CallNumber: "PN1997 .T65 1953", PriceCents: 2500},
		{Barcode: "39999000000002", CallNumber: "PN1997 .T65 1953", PriceCents: 300000},
		{Barcode: "39999000000004"},
	}, b.Copies)
	require.Equal(t, []marcmap.Code{marcmap.NoBarcode, marcmap.NoBarcode}, codes(b))
	assert.Contains(t, b.Warnings[0].Message, "876 #5")
	assert.Contains(t, b.Warnings[1].Message, "852 #3")
}

// An 876 without $8 belongs to the only 852; with several, to none.
func TestAn876WithoutALink(t *testing.T) {
	t.Parallel()
	b := mapped(t, titled(df("852", ' ', ' ', sf('h', "QA76")), df("876", ' ', ' ', sf('p', "b1"))))
	assert.Equal(t, []marcmap.Copy{{Barcode: "b1", CallNumber: "QA76"}}, b.Copies)
	assert.Empty(t, b.Warnings)

	b = mapped(t, titled(df("852", ' ', ' ', sf('h', "QA76")), df("852", ' ', ' ', sf('h', "QA77")), df("876", ' ', ' ', sf('p', "b1"))))
	assert.Equal(t, []marcmap.Copy{{Barcode: "b1"}}, b.Copies)
	assert.Equal(t, []marcmap.Code{marcmap.NoBarcode, marcmap.NoBarcode}, codes(b), "neither 852 has an item")
}

// A holdings mapping replaces the default: the 952 and 852 are not read.
func TestAHoldingsMappingReplacesTheDefault(t *testing.T) {
	t.Parallel()
	h, err := marcmap.ParseHoldings([]byte(`{"tag":"949","barcode":"i","materialType":"t","callNumber":"c","price":"p"}`))
	require.NoError(t, err)
	r := titled(
		df("952", ' ', ' ', sf('p', "koha-1")),
		df("852", ' ', ' ', sf('p', "852-1")),
		df("949", ' ', ' ', sf('i', "i-1"), sf('t', "DVD"), sf('c', "791.43"), sf('p', "19.95")),
		df("949", ' ', ' ', sf('t', "DVD")),
	)
	b, err := marcmap.Map(r, h)
	require.NoError(t, err)
	assert.Equal(t, []marcmap.Copy{{Barcode: "i-1", MaterialType: "dvd", CallNumber: "791.43", PriceCents: 1995}}, b.Copies)
	assert.Equal(t, []marcmap.Code{marcmap.NoBarcode}, codes(b))
	assert.Contains(t, b.Warnings[0].Message, "949 #2")

	h, err = marcmap.ParseHoldings([]byte(`[
		{"tag": "949", "barcode": "i", "callNumber": "ab"},
		{"tag": "945", "barcode": "y", "materialType": "t"}
	]`))
	require.NoError(t, err)
	assert.Len(t, h.Items(), 2)
	r = titled(
		df("945", ' ', ' ', sf('y', "y-1"), sf('t', "Book")),
		df("949", ' ', ' ', sf('b', "c.1"), sf('i', "i-1"), sf('a', "QA76.73"), sf('x', "no")),
	)
	b, err = marcmap.Map(r, h)
	require.NoError(t, err)
	assert.Equal(t, []marcmap.Copy{
		{Barcode: "y-1", MaterialType: "book"},
		{Barcode: "i-1", CallNumber: "c.1 QA76.73"},
	}, b.Copies, "copies in the record's order, a call number's parts in the field's")
	assert.Empty(t, marcmap.Holdings{}.Items(), "the default has no mapping")
}

func TestParseHoldingsRefuses(t *testing.T) {
	t.Parallel()
	for name, input := range map[string]string{
		"not JSON":                 `tag: 949`,
		"an unknown member":        `{"tag":"949","barcode":"i","location":"a"}`,
		"no barcode":               `{"tag":"949","callNumber":"c"}`,
		"a barcode of two codes":   `{"tag":"949","barcode":"ij"}`,
		"a price of two codes":     `{"tag":"949","barcode":"i","price":"pq"}`,
		"a material type of two":   `{"tag":"949","barcode":"i","materialType":"tu"}`,
		"a code not alphanumeric":  `{"tag":"949","barcode":"$"}`,
		"a call number code blank": `{"tag":"949","barcode":"i","callNumber":"a b"}`,
		"a short tag":              `{"tag":"49","barcode":"i"}`,
		"a control field's tag":    `{"tag":"008","barcode":"i"}`,
		"a tag twice":              `[{"tag":"949","barcode":"i"},{"tag":"949","barcode":"p"}]`,
		"an empty array":           `[]`,
		"two values":               `{"tag":"949","barcode":"i"} {"tag":"945","barcode":"y"}`,
		"nothing":                  ``,
	} {
		_, err := marcmap.ParseHoldings([]byte(input))
		assert.Error(t, err, name)
	}
}

// Many records, one mapping: Map changes nothing of the Holdings it is given.
func TestHoldingsItemsAreACopy(t *testing.T) {
	t.Parallel()
	h, err := marcmap.ParseHoldings([]byte(`{"tag":"949","barcode":"i"}`))
	require.NoError(t, err)
	items := h.Items()
	items[0].Tag = "999"
	assert.Equal(t, "949", h.Items()[0].Tag)
	_, err = marcmap.Map(marc.Record{Fields: []marc.Field{df("245", '0', '0', sf('a', "x"))}}, h)
	require.NoError(t, err)
}
