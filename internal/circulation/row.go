package circulation

import (
	"encoding/json"
	"errors"

	"library/internal/calendar"
)

// Any is the name that stands for every patron group, or every material type, in a row's key.
const Any = "*"

// Key names the patrons and the items a row is about: a patron group and a material type, each
// a name the library chooses or Any.
type Key struct {
	Group        string `json:"group"`
	MaterialType string `json:"materialType"`
}

// String writes the key as details name it: group/materialType.
func (k Key) String() string { return k.Group + "/" + k.MaterialType }

// Row is one line of the table: what lending its key's items to its key's patrons is like.
// Every field is optional, nil when the row leaves it to a less specific row (Table.Resolve):
// a row says only what differs. The JSON names are part of the stored data (RulesSet) and of
// the HTTP contract: never rename one.
type Row struct {
	Key
	// LoanPeriod is how long a loan lasts.
	LoanPeriod *calendar.Period `json:"loanPeriod,omitempty"`
	// Renewals is how many times a loan may be renewed.
	Renewals *int `json:"renewals,omitempty"`
	// MaxLoans is how many items of the material type a patron of the group may have at once.
	MaxLoans *int `json:"maxLoans,omitempty"`
	// FinePerDay is what a late day costs, in cents.
	FinePerDay *int64 `json:"finePerDay,omitempty"`
	// FineCap is the most one late return costs.
	FineCap *FineCap `json:"fineCap,omitempty"`
	// Holds is what a patron may place a hold on: the title, the copy, or nothing.
	Holds *Holds `json:"holds,omitempty"`
	// HoldPickup is how long a hold that came in waits on the shelf for its patron.
	HoldPickup *calendar.Period `json:"holdPickup,omitempty"`
	// Lends is false for what is never lent (reference books).
	Lends *bool `json:"lends,omitempty"`
	// LostAfter is how many open days after its due time an unreturned item counts as lost.
	LostAfter *int `json:"lostAfter,omitempty"`
	// ReplacementPrice is what a lost item costs the patron, in cents, when the copy has no
	// price of its own: the material type's default price. 0 charges nothing.
	ReplacementPrice *int64 `json:"replacementPrice,omitempty"`
}

// Equal reports whether r and o have one key and say the same of every field.
func (r Row) Equal(o Row) bool {
	return r.Key == o.Key &&
		same(r.LoanPeriod, o.LoanPeriod) && same(r.Renewals, o.Renewals) && same(r.MaxLoans, o.MaxLoans) &&
		same(r.FinePerDay, o.FinePerDay) && same(r.FineCap, o.FineCap) && same(r.Holds, o.Holds) &&
		same(r.HoldPickup, o.HoldPickup) && same(r.Lends, o.Lends) && same(r.LostAfter, o.LostAfter) &&
		same(r.ReplacementPrice, o.ReplacementPrice)
}

// same reports whether two optional values are both unset, or both set to one value.
func same[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// clone returns a copy of r that shares no pointer with it, so that a state's table can't be
// changed through a row someone else holds.
func (r Row) clone() Row {
	r.LoanPeriod, r.Renewals, r.MaxLoans = cloned(r.LoanPeriod), cloned(r.Renewals), cloned(r.MaxLoans)
	r.FinePerDay, r.FineCap, r.Holds = cloned(r.FinePerDay), cloned(r.FineCap), cloned(r.Holds)
	r.HoldPickup, r.Lends, r.LostAfter = cloned(r.HoldPickup), cloned(r.Lends), cloned(r.LostAfter)
	r.ReplacementPrice = cloned(r.ReplacementPrice)
	return r
}

func cloned[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneRows returns a deep copy of rows (Row.clone).
func cloneRows(rows []Row) []Row {
	if rows == nil {
		return nil
	}
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = r.clone()
	}
	return out
}

// Holds says what a patron may place a hold on.
type Holds string

// The values of Holds. Stored data: never rename.
const (
	// HoldsTitle: a hold on the title, filled by whichever copy comes back first.
	HoldsTitle Holds = "title"
	// HoldsCopy: a hold on one copy (an item whose copies differ: a map, a signed edition).
	HoldsCopy Holds = "copy"
	// HoldsNone: no holds.
	HoldsNone Holds = "none"
)

// valid reports whether h is one of the values of Holds.
func (h Holds) valid() bool { return h == HoldsTitle || h == HoldsCopy || h == HoldsNone }

// FineCap is the most one late return may cost: an Amount in cents, or, with ReplacementPrice,
// the price of replacing the copy that was late. In JSON it is {"amount": 500} or
// "replacementPrice".
type FineCap struct {
	Amount           int64
	ReplacementPrice bool
}

// replacementPrice is a FineCap's JSON when it is the replacement price.
const replacementPrice = "replacementPrice"

// badFineCap is the refusal of what is not a FineCap's JSON.
func badFineCap() error {
	return errors.New(`a fine cap is {"amount": cents} or "replacementPrice"`)
}

// MarshalJSON writes the cap as {"amount": cents} or "replacementPrice".
func (c FineCap) MarshalJSON() ([]byte, error) {
	if c.ReplacementPrice {
		return json.Marshal(replacementPrice)
	}
	return json.Marshal(map[string]int64{"amount": c.Amount})
}

// UnmarshalJSON reads a cap as MarshalJSON writes it, and nothing else: an object whose one
// field is not amount, in those letters, is refused, as is any other string.
func (c *FineCap) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s != replacementPrice {
			return badFineCap()
		}
		*c = FineCap{ReplacementPrice: true}
		return nil
	}
	// A map's keys are matched exactly, where a struct's fields would be matched in any case.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || len(fields) != 1 || fields["amount"] == nil ||
		string(fields["amount"]) == "null" {
		return badFineCap()
	}
	var amount int64
	if err := json.Unmarshal(fields["amount"], &amount); err != nil {
		return badFineCap()
	}
	*c = FineCap{Amount: amount}
	return nil
}
