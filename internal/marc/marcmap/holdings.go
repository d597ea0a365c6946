package marcmap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"library/internal/marc"
)

// ItemField says where copies are in a record: each field with the tag is one copy, and the
// other members are the subfield codes of its parts. CallNumber may name several codes, whose
// values are joined with a blank in the field's order; the others name one, or none.
type ItemField struct {
	Tag          string `json:"tag"`
	Barcode      string `json:"barcode"`
	MaterialType string `json:"materialType,omitempty"`
	CallNumber   string `json:"callNumber,omitempty"`
	Price        string `json:"price,omitempty"`
}

// kohaItems is Koha's item field, 952.
func kohaItems() ItemField {
	return ItemField{Tag: "952", Barcode: "p", MaterialType: "y", CallNumber: "o", Price: "v"}
}

// Holdings says where a record's copies are. The zero value is the default: Koha's 952, and
// MARC 21's 852 with 876. ParseHoldings reads another from a holdings mapping file, which
// replaces the default.
type Holdings struct {
	items []ItemField
}

// Items are the item fields of a holdings mapping, or none for the default.
func (h Holdings) Items() []ItemField { return append([]ItemField(nil), h.items...) }

// ParseHoldings reads a holdings mapping: one item field as a JSON object, or several in an
// array. A mapping is refused when it has a member it does not know, a tag that is not three
// letters or digits or is a control field's, the same tag twice, no barcode code, or codes
// that are not one letter or digit each (one only, but for callNumber).
func ParseHoldings(data []byte) (Holdings, error) {
	data = bytes.TrimSpace(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var items []ItemField
	var err error
	if bytes.HasPrefix(data, []byte("[")) {
		err = dec.Decode(&items)
	} else {
		var one ItemField
		err = dec.Decode(&one)
		items = []ItemField{one}
	}
	if err != nil {
		return Holdings{}, fmt.Errorf("marcmap: holdings mapping: %w", err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return Holdings{}, errors.New("marcmap: holdings mapping: more than one JSON value; put several item fields in an array")
	}
	if len(items) == 0 {
		return Holdings{}, errors.New("marcmap: holdings mapping: no item field")
	}
	seen := map[string]bool{}
	for i, it := range items {
		if err := checkItemField(it); err != nil {
			return Holdings{}, fmt.Errorf("marcmap: holdings mapping, item field %d: %w", i+1, err)
		}
		if seen[it.Tag] {
			return Holdings{}, fmt.Errorf("marcmap: holdings mapping: tag %s twice", it.Tag)
		}
		seen[it.Tag] = true
	}
	return Holdings{items: items}, nil
}

func checkItemField(it ItemField) error {
	if len(it.Tag) != 3 || !allAlnum(it.Tag) || marc.IsControlTag(it.Tag) {
		return fmt.Errorf("tag %q is not a data field's: three letters or digits, not 00 first", it.Tag)
	}
	for _, c := range []struct{ name, codes string }{
		{"barcode", it.Barcode}, {"materialType", it.MaterialType}, {"price", it.Price}, {"callNumber", it.CallNumber},
	} {
		switch {
		case !allAlnum(c.codes):
			return fmt.Errorf("%s %q: subfield codes are letters or digits", c.name, c.codes)
		case c.name == "barcode" && len(c.codes) != 1:
			return fmt.Errorf("barcode %q: a copy's barcode is in one subfield, named by one code", c.codes)
		case c.name != "callNumber" && len(c.codes) > 1:
			return fmt.Errorf("%s %q: one subfield code, or none", c.name, c.codes)
		}
	}
	return nil
}

// allAlnum reports whether s is ASCII letters and digits only.
func allAlnum(s string) bool {
	return !strings.ContainsFunc(s, func(c rune) bool {
		return c > unicode.MaxASCII || !unicode.IsLetter(c) && !unicode.IsDigit(c)
	})
}
