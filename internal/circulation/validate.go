package circulation

import (
	"fmt"

	"library/internal/calendar"
	"library/internal/errs"
	"library/internal/validate"
)

// Limits of a table.
const (
	// MaxNameLength is the longest name of a patron group or a material type.
	MaxNameLength = 32
	// MaxRows bounds a table: more rows than any library's groups times its material types, and
	// few enough that the event that records a table stays small.
	MaxRows = 1000
	// MaxCount bounds the counts a row says (renewals, loans at once, open days to lost).
	MaxCount = 10_000
)

// Validate refuses a table that can't be resolved as it says: with an errs.InvalidRequest
// error whose detail names the first bad row, by its index and key (rows[2] (staff/dvd)), and
// the field, and whose extensions say the row (its index) and the field (its JSON name). It
// refuses more than MaxRows rows; a group or a material type that is neither Any nor 1 to
// MaxNameLength characters from a-z 0-9 - _ (the detail then names the row by its index only,
// never echoing the name); two rows with one key; a period that is not more than zero, or
// sets both days and an exact duration, or is longer than package calendar reads; a negative
// count or amount (a fine, a replacement price), or one over its bound (MaxCount,
// validate.MaxAmount); a lostAfter under 1;
// a holds that is not title, copy or none; and a fine cap that is both an amount and the
// replacement price.
func (t Table) Validate() error {
	if len(t.Rows) > MaxRows {
		return errs.E(errs.InvalidRequest, "a table has at most %d rows", MaxRows)
	}
	seen := make(map[Key]int, len(t.Rows))
	for i, r := range t.Rows {
		if err := r.checkKey(i); err != nil {
			return err
		}
		if first, ok := seen[r.Key]; ok {
			return rowError(i, &r.Key, "", "has the group and materialType of rows[%d]: one row per key", first)
		}
		seen[r.Key] = i
		if field, rule := r.badField(); field != "" {
			return rowError(i, &r.Key, field, "%s must be %s", field, rule)
		}
	}
	return nil
}

// checkKey refuses a row, the i-th, whose group or material type is not a name.
func (r Row) checkKey(i int) error {
	for _, f := range [...]struct{ field, name string }{{"group", r.Group}, {"materialType", r.MaterialType}} {
		if !isName(f.name) {
			return rowError(i, nil, f.field, "%s must be %q or 1 to %d characters from a-z 0-9 - _", f.field, Any, MaxNameLength)
		}
	}
	return nil
}

// isName reports whether s may name a patron group or a material type in a row's key.
func isName(s string) bool {
	if s == Any {
		return true
	}
	if s == "" || len(s) > MaxNameLength {
		return false
	}
	for i := range len(s) {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func isNameChar(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// badField returns the JSON name of the first field of r that is set to a value it can't have,
// and what it must be; "" when every field is good.
func (r Row) badField() (field, rule string) {
	for _, c := range [...]struct {
		field, rule string
		ok          bool
	}{
		{"loanPeriod", periodRule, r.LoanPeriod == nil || isPeriod(*r.LoanPeriod)},
		{"renewals", countRule(0), r.Renewals == nil || 0 <= *r.Renewals && *r.Renewals <= MaxCount},
		{"maxLoans", countRule(0), r.MaxLoans == nil || 0 <= *r.MaxLoans && *r.MaxLoans <= MaxCount},
		{"finePerDay", amountRule(), r.FinePerDay == nil || isAmount(*r.FinePerDay)},
		{"fineCap", fineCapRule(), r.FineCap == nil || isFineCap(*r.FineCap)},
		{"holds", `"title", "copy" or "none"`, r.Holds == nil || r.Holds.valid()},
		{"holdPickup", periodRule, r.HoldPickup == nil || isPeriod(*r.HoldPickup)},
		{"lostAfter", countRule(1), r.LostAfter == nil || 1 <= *r.LostAfter && *r.LostAfter <= MaxCount},
		{"replacementPrice", amountRule(), r.ReplacementPrice == nil || isAmount(*r.ReplacementPrice)},
	} {
		if !c.ok {
			return c.field, c.rule
		}
	}
	return "", ""
}

const periodRule = "a period more than zero: whole days such as 21d, or a duration such as 4h or 90s"

func amountRule() string {
	return fmt.Sprintf("a whole number of cents from 0 to %d", validate.MaxAmount)
}

func fineCapRule() string {
	return fmt.Sprintf(`{"amount": cents} with cents from 0 to %d, or "replacementPrice"`, validate.MaxAmount)
}

func countRule(least int) string {
	return fmt.Sprintf("a whole number from %d to %d", least, MaxCount)
}

// isPeriod reports whether p is a period package calendar reads back as itself: more than
// zero, days or a duration but not both, and not longer than it allows.
func isPeriod(p calendar.Period) bool {
	parsed, err := calendar.ParsePeriod(p.String())
	return err == nil && parsed == p
}

func isAmount(cents int64) bool { return 0 <= cents && cents <= validate.MaxAmount }

func isFineCap(c FineCap) bool {
	if c.ReplacementPrice {
		return c.Amount == 0
	}
	return isAmount(c.Amount)
}

// rowError is the refusal of the i-th row, named by its key when it has a good one, about
// field (its JSON name; "" for the row as a whole).
func rowError(i int, key *Key, field, format string, args ...any) error {
	where := fmt.Sprintf("rows[%d]", i)
	if key != nil {
		where += " (" + key.String() + ")"
	}
	e := errs.E(errs.InvalidRequest, "%s: %s", where, fmt.Sprintf(format, args...)).With("row", i)
	if field != "" {
		e = e.With("field", field)
	}
	return e
}

// CheckName refuses, with errs.InvalidRequest naming param, what is not the name of one
// patron group or one material type: 1 to MaxNameLength characters from a-z 0-9 - _ (Any,
// which stands for every one in a row's key, is none).
func CheckName(param, s string) error {
	if s == Any || !isName(s) {
		return errs.E(errs.InvalidRequest, "%s must be 1 to %d characters from a-z 0-9 - _", param, MaxNameLength)
	}
	return nil
}
