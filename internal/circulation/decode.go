package circulation

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"library/internal/errs"
)

// DecodeTable reads a table as a client sends it, {"rows": [row, ...]}, strictly: each
// refusal an errs.InvalidRequest error that says where (rows[2]) and which field, in its
// detail and in its extensions (row, the index; field, the name as sent, cut short). A name that
// is not a field, in those letters (field names are case-sensitive), or a field given twice,
// is refused and named; so is a value of the wrong kind, without echoing it. rows is required
// (an empty array is the empty table, which leaves every field to the defaults), and nothing
// may follow the object. A field given as null is left unset, as if it were left out.
//
// It decodes, and does not validate: Table.Validate says what is wrong with the values.
func DecodeTable(data []byte) (Table, error) {
	var t Table
	found := false
	err := members(data, "the body", func(name string, value json.RawMessage) error {
		if name != "rows" {
			return errs.E(errs.InvalidRequest, "the body has an unknown field %s: it has only rows", quoted(name))
		}
		found = true
		return decodeRows(value, &t)
	})
	if err == nil && !found {
		err = errs.E(errs.InvalidRequest, "rows is required: an array of rows, [] for none")
	}
	return t, err
}

// decodeRows decodes the array of rows in data into t.
func decodeRows(data json.RawMessage, t *Table) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil || raws == nil {
		return errs.E(errs.InvalidRequest, "rows must be an array of rows")
	}
	t.Rows = make([]Row, len(raws))
	for i, raw := range raws {
		where := "rows[" + strconv.Itoa(i) + "]"
		err := members(raw, where, func(name string, value json.RawMessage) error {
			return decodeField(&t.Rows[i], where, name, value)
		})
		if err != nil {
			if e, ok := errors.AsType[*errs.Error](err); ok {
				return e.With("row", i)
			}
			return err
		}
	}
	return nil
}

// decodeField decodes one field of a row, named name, from value.
func decodeField(r *Row, where, name string, value json.RawMessage) error {
	var err error
	var want string
	switch name {
	case "group", "materialType":
		want = "a string"
		dst := &r.Group
		if name == "materialType" {
			dst = &r.MaterialType
		}
		err = json.Unmarshal(value, dst)
	case "loanPeriod":
		want, err = periodRule, optional(value, &r.LoanPeriod)
	case "renewals":
		want, err = "a whole number", optional(value, &r.Renewals)
	case "maxLoans":
		want, err = "a whole number", optional(value, &r.MaxLoans)
	case "finePerDay":
		want, err = "a whole number of cents", optional(value, &r.FinePerDay)
	case "fineCap":
		want, err = `{"amount": cents} or "replacementPrice"`, optional(value, &r.FineCap)
	case "holds":
		want, err = `"title", "copy" or "none"`, optional(value, &r.Holds)
	case "holdPickup":
		want, err = periodRule, optional(value, &r.HoldPickup)
	case "lends":
		want, err = "true or false", optional(value, &r.Lends)
	case "lostAfter":
		want, err = "a whole number of open days", optional(value, &r.LostAfter)
	case "replacementPrice":
		want, err = "a whole number of cents", optional(value, &r.ReplacementPrice)
	default:
		return errs.E(errs.InvalidRequest, "%s has an unknown field %s (field names are case-sensitive)", where, quoted(name)).
			With("field", cut(name))
	}
	if err != nil {
		return errs.Wrap(errs.InvalidRequest, err, "%s: %s must be %s", where, name, want).With("field", name)
	}
	return nil
}

// optional decodes value into *dst: nil for null, a new value otherwise.
func optional[T any](value json.RawMessage, dst **T) error {
	if string(bytes.TrimSpace(value)) == "null" {
		*dst = nil
		return nil
	}
	v := new(T)
	if err := json.Unmarshal(value, v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// members calls each with the name and value of every member of the JSON object in data, in
// order. It refuses what is not one object, a name given twice, and anything after the object;
// where names the object in refusals.
func members(data []byte, where string, each func(name string, value json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errs.E(errs.InvalidRequest, "%s must be a JSON object", where)
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return errs.Wrap(errs.InvalidRequest, err, "%s is not valid JSON", where)
		}
		name, _ := tok.(string)
		if seen[name] {
			return errs.E(errs.InvalidRequest, "%s has the field %s twice", where, quoted(name)).With("field", cut(name))
		}
		seen[name] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return errs.Wrap(errs.InvalidRequest, err, "%s is not valid JSON", where)
		}
		if err := each(name, value); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return errs.Wrap(errs.InvalidRequest, err, "%s is not valid JSON", where)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errs.E(errs.InvalidRequest, "%s must be one JSON object, with nothing after it", where)
	}
	return nil
}

// longestName is the most of a field name a client sent that a refusal repeats.
const longestName = 40

// quoted is a field name a client sent, quoted for a detail: escaped, and cut short if long.
func quoted(name string) string {
	if c := cut(name); c != name {
		return strconv.Quote(c) + "…"
	}
	return strconv.Quote(name)
}

// cut is a field name a client sent, cut to its first longestName bytes, or fewer so as not
// to split a character, for a problem's field member: a name of any length may be sent, and
// the refusal must stay small.
func cut(name string) string {
	if len(name) <= longestName {
		return name
	}
	end := longestName
	for end > 0 && !utf8.RuneStart(name[end]) {
		end--
	}
	return name[:end]
}
