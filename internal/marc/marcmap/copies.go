package marcmap

import (
	"fmt"
	"strings"

	"library/internal/marc"
)

// item is what a field says of one copy, before it is checked.
type item struct {
	tag          string
	n            int // the field is the nth of its tag in the record, from 1
	barcode      string
	materialType string
	callNumber   string
	price        string
	priceCode    string // the subfield of the price, for warnings
}

// at names the field, for warnings: "952 #2".
func (it item) at() string { return fmt.Sprintf("%s #%d", it.tag, it.n) }

// itemOf reads a copy from a field as spec says.
func itemOf(f marc.Field, n int, spec ItemField) item {
	first := func(codes string) string {
		if codes == "" {
			return ""
		}
		return f.Subfield(codes[0])
	}
	return item{
		tag:          f.Tag,
		n:            n,
		barcode:      first(spec.Barcode),
		materialType: first(spec.MaterialType),
		callNumber:   strings.Join(f.Values([]byte(spec.CallNumber)...), " "),
		price:        first(spec.Price),
		priceCode:    spec.Price,
	}
}

// copies gathers a record's copies, and warns of those left out.
type copies struct {
	bib  *Bib
	list []Copy
}

func (b *Bib) copiesOf(r marc.Record, h Holdings) []Copy {
	c := copies{bib: b}
	if len(h.items) == 0 {
		for i, f := range r.All("952") {
			c.add(itemOf(f, i+1, kohaItems()))
		}
		c.addStandard(r)
		return c.list
	}
	counts := map[string]int{}
	for _, f := range r.Fields {
		for _, spec := range h.items {
			if f.Tag == spec.Tag {
				counts[f.Tag]++
				c.add(itemOf(f, counts[f.Tag], spec))
			}
		}
	}
	return c.list
}

// add keeps an item as a copy, unless it has no barcode or another copy has it.
func (c *copies) add(it item) {
	barcode := strings.TrimSpace(it.barcode)
	if barcode == "" {
		c.bib.warn(NoBarcode, it.tag, "%s has no barcode: the copy is left out", it.at())
		return
	}
	if c.find(barcode) >= 0 {
		c.bib.warn(DuplicateBarcode, it.tag, "%s: barcode %q is another copy's of this record: it is left out", it.at(), barcode)
		return
	}
	cp := Copy{
		Barcode:      barcode,
		MaterialType: strings.ToLower(strings.TrimSpace(it.materialType)),
		CallNumber:   strings.TrimSpace(it.callNumber),
	}
	cp.PriceCents = c.price(it)
	c.list = append(c.list, cp)
}

// price is an item's price in hundredths, or 0 with a warning when it is not an amount.
func (c *copies) price(it item) int64 {
	if strings.TrimSpace(it.price) == "" {
		return 0
	}
	cents, ok := priceCents(it.price)
	if !ok {
		c.bib.warn(BadPrice, it.tag, "%s: price %q ($%s) is not an amount: the copy is kept without a price", it.at(), it.price, it.priceCode)
	}
	return cents
}

func (c *copies) find(barcode string) int {
	for i, cp := range c.list {
		if cp.Barcode == barcode {
			return i
		}
	}
	return -1
}

// addStandard reads MARC 21's holdings in a bibliographic record: an 852 (location) with a
// barcode in $p is a copy, its call number $h and $i; an 876 (item) is a copy, barcode $p and
// price $c, at the 852 its $8 links it to (or the only 852), and when an 852 already gave its
// barcode it adds its price to that copy. An 852 with neither a barcode nor an item linked to
// it is a copy without a barcode.
func (c *copies) addStandard(r marc.Record) {
	locations, items := r.All("852"), r.All("876")
	linked := make([]bool, len(locations))
	atLocation := map[string]bool{} // the barcodes 852s gave
	for i, loc := range locations {
		if barcode := strings.TrimSpace(loc.Subfield('p')); barcode != "" {
			if c.find(barcode) < 0 {
				atLocation[barcode] = true
			}
			c.add(item{tag: "852", n: i + 1, barcode: barcode, callNumber: callNumber852(loc)})
		}
	}
	for j, f := range items {
		it := item{tag: "876", n: j + 1, barcode: f.Subfield('p'), price: f.Subfield('c'), priceCode: "c"}
		if i := linkedLocation(f, locations); i >= 0 {
			linked[i] = true
			it.callNumber = callNumber852(locations[i])
		}
		if barcode := strings.TrimSpace(it.barcode); atLocation[barcode] {
			delete(atLocation, barcode) // a second 876 of that barcode is a duplicate
			c.list[c.find(barcode)].PriceCents = c.price(it)
			continue
		}
		c.add(it)
	}
	for i, loc := range locations {
		if loc.Subfield('p') == "" && !linked[i] {
			c.bib.warn(NoBarcode, "852", "852 #%d has no barcode ($p) and no item (876) linked to it: the copy is left out", i+1)
		}
	}
}

func callNumber852(loc marc.Field) string {
	return strings.Join(loc.Values('h', 'i'), " ")
}

// linkedLocation is the index of the 852 an 876 belongs to: the one whose $8 link number (the
// part before the full stop) is the 876's, or the only one when the 876 has no $8; -1 when
// there is none.
func linkedLocation(f marc.Field, locations []marc.Field) int {
	link := linkNumber(f)
	if link == "" {
		if len(locations) == 1 {
			return 0
		}
		return -1
	}
	for i, loc := range locations {
		if linkNumber(loc) == link {
			return i
		}
	}
	return -1
}

func linkNumber(f marc.Field) string {
	link, _, _ := strings.Cut(strings.TrimSpace(f.Subfield('8')), ".")
	return link
}
