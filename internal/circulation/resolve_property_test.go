package circulation_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/calendar"
	"library/internal/circulation"
)

// The names rows and questions are drawn from: few, so that rows often apply.
var (
	propertyGroups = []string{"*", "staff", "student"}
	propertyTypes  = []string{"*", "book", "dvd"}
)

// drawRow draws a row with key k whose fields are each set or not, at random.
func drawRow(t *rapid.T, k circulation.Key) circulation.Row {
	r := circulation.Row{Key: k}
	maybe := func(label string) bool { return rapid.Bool().Draw(t, label) }
	if maybe("loanPeriod") {
		r.LoanPeriod = &calendar.Period{Days: rapid.IntRange(1, 60).Draw(t, "days")}
	}
	if maybe("renewals") {
		r.Renewals = new(rapid.IntRange(0, 5).Draw(t, "renewals n"))
	}
	if maybe("maxLoans") {
		r.MaxLoans = new(rapid.IntRange(0, 20).Draw(t, "maxLoans n"))
	}
	if maybe("finePerDay") {
		r.FinePerDay = new(rapid.Int64Range(0, 500).Draw(t, "finePerDay n"))
	}
	if maybe("fineCap") {
		r.FineCap = &circulation.FineCap{Amount: rapid.Int64Range(0, 5000).Draw(t, "cap")}
	}
	if maybe("holds") {
		r.Holds = new(rapid.SampledFrom([]circulation.Holds{circulation.HoldsTitle, circulation.HoldsCopy, circulation.HoldsNone}).Draw(t, "holds v"))
	}
	if maybe("holdPickup") {
		r.HoldPickup = &calendar.Period{Days: rapid.IntRange(1, 14).Draw(t, "pickup")}
	}
	if maybe("lends") {
		r.Lends = new(rapid.Bool().Draw(t, "lends v"))
	}
	if maybe("lostAfter") {
		r.LostAfter = new(rapid.IntRange(1, 90).Draw(t, "lostAfter n"))
	}
	if maybe("replacementPrice") {
		r.ReplacementPrice = new(rapid.Int64Range(0, 10_000).Draw(t, "replacementPrice n"))
	}
	return r
}

// drawTable draws a valid table: some of the keys the names make, each once, in any order.
func drawTable(t *rapid.T) circulation.Table {
	var keys []circulation.Key
	for _, g := range propertyGroups {
		for _, m := range propertyTypes {
			keys = append(keys, circulation.Key{Group: g, MaterialType: m})
		}
	}
	keys = rapid.Permutation(keys).Draw(t, "keys")
	keys = keys[:rapid.IntRange(0, len(keys)).Draw(t, "rows")]
	var table circulation.Table
	for _, k := range keys {
		table.Rows = append(table.Rows, drawRow(t, k))
	}
	return table
}

// naive resolves one field a second way: of every row that applies to (group, materialType)
// and sets the field (read from the row's JSON), the one whose key is most specific, a group
// counting for more than a type; the defaults when there is none.
func naive(t *testing.T, table circulation.Table, defaults circulation.Row, group, materialType, field string) (string, int) {
	best, bestScore := -1, -1
	for i, r := range table.Rows {
		applies := (r.Group == group || r.Group == "*") && (r.MaterialType == materialType || r.MaterialType == "*")
		score := 0
		if r.Group == group {
			score += 2
		}
		if r.MaterialType == materialType {
			score++
		}
		if _, sets := jsonFields(t, r)[field]; applies && sets && score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return jsonFields(t, defaults)[field], circulation.DefaultsRow
	}
	return jsonFields(t, table.Rows[best])[field], best
}

// jsonFields are the fields a row sets, by JSON name, each with its value as compact JSON.
func jsonFields(t *testing.T, r circulation.Row) map[string]string {
	raw, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	out := make(map[string]string, len(m))
	for name, v := range m {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, v))
		out[name] = b.String()
	}
	return out
}

// For random tables and random questions, each resolved field is the value of the most
// specific row that sets it, found the naive way, and its source is that row.
func TestResolveIsTheMostSpecificRow(t *testing.T) {
	t.Parallel()
	outer := t
	defaults := circulation.Defaults(env)
	rapid.Check(t, func(t *rapid.T) {
		table := drawTable(t)
		require.NoError(t, table.Validate())
		group := rapid.SampledFrom(append(propertyGroups, "visitor")).Draw(t, "group")
		materialType := rapid.SampledFrom(append(propertyTypes, "map")).Draw(t, "materialType")
		got := fieldsOf(outer, table.Resolve(group, materialType, defaults))
		require.Len(t, got, 10)
		for field, d := range got {
			value, row := naive(outer, table, defaults, group, materialType, field)
			require.Equal(t, decided{value: value, row: row}, d, "%s for %s/%s", field, group, materialType)
		}
	})
}
