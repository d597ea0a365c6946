package circulation_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/circulation"
)

func TestFine(t *testing.T) {
	t.Parallel()
	capped := func(amount int64) circulation.LoanTerms {
		return circulation.LoanTerms{FinePerDay: 25, FineCap: circulation.FineCap{Amount: amount}}
	}
	price := circulation.LoanTerms{FinePerDay: 25, FineCap: circulation.FineCap{ReplacementPrice: true}}
	for _, c := range []struct {
		name     string
		terms    circulation.LoanTerms
		lateDays int
		price    int64
		want     int64
	}{
		{"on time", capped(500), 0, 2000, 0},
		{"early", capped(500), -3, 2000, 0},
		{"a day late", capped(500), 1, 2000, 25},
		{"under the cap", capped(500), 19, 2000, 475},
		{"at the cap", capped(500), 20, 2000, 500},
		{"over the cap", capped(500), 21, 2000, 500},
		{"a cap of nothing", capped(0), 10, 2000, 0},
		{"no fine per day", circulation.LoanTerms{FineCap: circulation.FineCap{Amount: 500}}, 10, 2000, 0},
		{"capped at the price", price, 100, 2000, 2000},
		{"under the price", price, 10, 2000, 250},
		{"no price recorded: no cap", price, 100, 0, 2500},
		{"a negative price: no cap", price, 100, -5, 2500},
		{"the price ignored for an amount", capped(500), 100, 100, 500},
		{"too large to multiply", circulation.LoanTerms{FinePerDay: math.MaxInt64 / 2, FineCap: circulation.FineCap{ReplacementPrice: true}},
			3, 0, math.MaxInt64},
	} {
		require.Equal(t, c.want, circulation.Fine(c.terms, c.lateDays, c.price), c.name)
	}
}

// For any terms, price and late days: no fine when not late, never more than the cap, and
// never less for more days.
func TestFineProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		terms := circulation.LoanTerms{
			FinePerDay: rapid.Int64Range(0, 100_000_000).Draw(t, "finePerDay"),
			FineCap: circulation.FineCap{
				Amount:           rapid.Int64Range(0, 100_000_000).Draw(t, "amount"),
				ReplacementPrice: rapid.Bool().Draw(t, "replacementPrice"),
			},
		}
		if terms.FineCap.ReplacementPrice {
			terms.FineCap.Amount = 0
		}
		price := rapid.Int64Range(-10, 100_000_000).Draw(t, "price")
		days := rapid.IntRange(-10, math.MaxInt32).Draw(t, "lateDays")
		more := days + rapid.IntRange(0, 1_000_000).Draw(t, "more")

		fine := circulation.Fine(terms, days, price)
		require.Zero(t, circulation.Fine(terms, 0, price), "no late days, no fine")
		require.GreaterOrEqual(t, fine, int64(0))
		require.LessOrEqual(t, fine, circulation.Fine(terms, more, price), "monotone in late days")
		switch {
		case !terms.FineCap.ReplacementPrice:
			require.LessOrEqual(t, fine, terms.FineCap.Amount, "never above the cap")
		case price > 0:
			require.LessOrEqual(t, fine, price, "never above the replacement price")
		}
		if days > 0 {
			require.LessOrEqual(t, fine, terms.FinePerDay*int64(days), "never more than per day times days")
		}
	})
}

// A loan keeps the terms it was made on; they are stored data.
func TestLoanTerms(t *testing.T) {
	t.Parallel()
	terms := circulation.Table{}.Resolve("staff", "dvd", circulation.Defaults(env)).Loan("staff", "dvd", 3)
	require.Equal(t, circulation.LoanTerms{Group: "staff", MaterialType: "dvd", FinePerDay: 25,
		FineCap: circulation.FineCap{ReplacementPrice: true}, RenewalsAllowed: 2, LostAfter: circulation.DefaultLostAfter, RulesVersion: 3}, terms)
	data, err := json.Marshal(terms)
	require.NoError(t, err)
	require.JSONEq(t, `{"group":"staff","materialType":"dvd","finePerDay":25,"fineCap":"replacementPrice","renewalsAllowed":2,"lostAfter":60,"rulesVersion":3}`, string(data))
	var back circulation.LoanTerms
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, terms, back)
}
