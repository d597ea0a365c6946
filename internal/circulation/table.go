package circulation

import "library/internal/calendar"

// Table is the library's circulation rules: its rows, in the order the library gave them.
// Order does not change what a table resolves to (no two rows share a key); it is kept so that
// the table reads back as it was written.
type Table struct {
	Rows []Row `json:"rows"`
}

// Equal reports whether t and o have the same rows in the same order.
func (t Table) Equal(o Table) bool {
	if len(t.Rows) != len(o.Rows) {
		return false
	}
	for i := range t.Rows {
		if !t.Rows[i].Equal(o.Rows[i]) {
			return false
		}
	}
	return true
}

// Terms are what the table says of lending one material type to one patron group: every
// field resolved, and which row decided each (From).
type Terms struct {
	LoanPeriod calendar.Period `json:"loanPeriod"`
	Renewals   int             `json:"renewals"`
	MaxLoans   int             `json:"maxLoans"`
	FinePerDay int64           `json:"finePerDay"`
	FineCap    FineCap         `json:"fineCap"`
	Holds      Holds           `json:"holds"`
	HoldPickup calendar.Period `json:"holdPickup"`
	Lends      bool            `json:"lends"`
	LostAfter  int             `json:"lostAfter"`
	// ReplacementPrice is the material type's default price of a lost copy, in cents.
	ReplacementPrice int64   `json:"replacementPrice"`
	From             Sources `json:"from"`
}

// Sources say, field by field, which row decided a Terms' value.
type Sources struct {
	LoanPeriod Source `json:"loanPeriod"`
	Renewals   Source `json:"renewals"`
	MaxLoans   Source `json:"maxLoans"`
	FinePerDay Source `json:"finePerDay"`
	FineCap    Source `json:"fineCap"`
	Holds      Source `json:"holds"`
	HoldPickup Source `json:"holdPickup"`
	Lends      Source `json:"lends"`
	LostAfter  Source `json:"lostAfter"`
	// ReplacementPrice is the row that set the default price of a lost copy.
	ReplacementPrice Source `json:"replacementPrice"`
}

// DefaultsRow is a Source's Row when no row of the table set the field, and the value is the
// environment's (Defaults).
const DefaultsRow = -1

// Source is the row that decided a value: its key, and its index in the table's Rows, or
// DefaultsRow (with the key */*) for the environment's defaults.
type Source struct {
	Key
	Row int `json:"row"`
}

// candidate is a row that may decide a value, with where it comes from.
type candidate struct {
	row    Row
	source Source
}

// Resolve returns the terms of lending materialType to group. For each field, the most
// specific row that sets it decides: the row keyed (group, materialType), then (group, *),
// then (*, materialType), then (*, *), and last defaults (the environment's, Defaults), whose
// key is ignored. A field neither the table nor defaults sets is its zero value: Defaults sets
// every field, so that does not happen to a service that passes what Defaults made.
//
// The table is taken to be valid (Validate): were two rows to share a key, the first would
// decide.
func (t Table) Resolve(group, materialType string, defaults Row) Terms {
	c := t.candidates(group, materialType, defaults)
	var terms Terms
	terms.LoanPeriod, terms.From.LoanPeriod = pick(c, func(r Row) *calendar.Period { return r.LoanPeriod })
	terms.Renewals, terms.From.Renewals = pick(c, func(r Row) *int { return r.Renewals })
	terms.MaxLoans, terms.From.MaxLoans = pick(c, func(r Row) *int { return r.MaxLoans })
	terms.FinePerDay, terms.From.FinePerDay = pick(c, func(r Row) *int64 { return r.FinePerDay })
	terms.FineCap, terms.From.FineCap = pick(c, func(r Row) *FineCap { return r.FineCap })
	terms.Holds, terms.From.Holds = pick(c, func(r Row) *Holds { return r.Holds })
	terms.HoldPickup, terms.From.HoldPickup = pick(c, func(r Row) *calendar.Period { return r.HoldPickup })
	terms.Lends, terms.From.Lends = pick(c, func(r Row) *bool { return r.Lends })
	terms.LostAfter, terms.From.LostAfter = pick(c, func(r Row) *int { return r.LostAfter })
	terms.ReplacementPrice, terms.From.ReplacementPrice = pick(c, func(r Row) *int64 { return r.ReplacementPrice })
	return terms
}

// candidates are the rows that may decide a value for (group, materialType), the most specific
// first, ending with defaults.
func (t Table) candidates(group, materialType string, defaults Row) []candidate {
	keys := [...]Key{{group, materialType}, {group, Any}, {Any, materialType}, {Any, Any}}
	c := make([]candidate, 0, len(keys)+1)
	for _, k := range keys {
		if i := t.index(k); i >= 0 {
			c = append(c, candidate{row: t.Rows[i], source: Source{Key: k, Row: i}})
		}
	}
	return append(c, candidate{row: defaults, source: Source{Key: Key{Any, Any}, Row: DefaultsRow}})
}

// index is the index of the first row keyed k, or -1.
func (t Table) index(k Key) int {
	for i, r := range t.Rows {
		if r.Key == k {
			return i
		}
	}
	return -1
}

// pick returns the value of the first candidate that sets a field (get), and its source.
func pick[T any](candidates []candidate, get func(Row) *T) (T, Source) {
	for _, c := range candidates {
		if v := get(c.row); v != nil {
			return *v, c.source
		}
	}
	var zero T
	return zero, candidates[len(candidates)-1].source
}
