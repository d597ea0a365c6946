package circulation

import (
	"time"

	"library/internal/calendar"
)

// Environment holds the numbers the service was started with (package config: LOAN_PERIOD,
// RENEWALS_MAX, MAX_LOANS, FINE_PER_DAY, HOLD_PICKUP), which were the whole of the rules
// before there was a table, and are now the rules under it.
type Environment struct {
	LoanPeriod  time.Duration
	RenewalsMax int
	MaxLoans    int
	FinePerDay  int64
	HoldPickup  time.Duration
}

// DefaultLostAfter is how many open days after its due time an item counts as lost when no
// row says otherwise.
const DefaultLostAfter = 60

// Defaults returns the */* row the environment makes, which sets every field: the loan period
// and the hold pickup as exact periods (the environment's are durations, lent and held for to
// the second as before there were rules), its renewals, loans at once and fine per day, holds
// on titles, everything lent, lost after DefaultLostAfter open days, fines capped at the copy's
// replacement price, and no default price for a lost copy (one with no price of its own is
// charged nothing until a row names its type's price). A library that never set a table is
// lent to on this row alone;
// Table.Resolve falls back to it for any field the table's rows leave unset.
func Defaults(env Environment) Row {
	return Row{
		Key:        Key{Group: Any, MaterialType: Any},
		LoanPeriod: &calendar.Period{Exact: env.LoanPeriod},
		Renewals:   new(env.RenewalsMax),
		MaxLoans:   new(env.MaxLoans),
		FinePerDay: new(env.FinePerDay),
		FineCap:    &FineCap{ReplacementPrice: true},
		Holds:      new(HoldsTitle),
		HoldPickup: &calendar.Period{Exact: env.HoldPickup},
		Lends:      new(true),
		LostAfter:  new(DefaultLostAfter),
		// No price a library did not choose: 0, nothing charged.
		ReplacementPrice: new(int64(0)),
	}
}
