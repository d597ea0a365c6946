package circulation_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/calendar"
	"library/internal/circulation"
)

// env is the environment of the tests: the service's own defaults.
var env = circulation.Environment{
	LoanPeriod: 336 * time.Hour, RenewalsMax: 2, MaxLoans: 10, FinePerDay: 25, HoldPickup: 72 * time.Hour,
}

func days(n int) *calendar.Period { return &calendar.Period{Days: n} }

func row(group, materialType string) circulation.Row {
	return circulation.Row{Key: circulation.Key{Group: group, MaterialType: materialType}}
}

// decided is what Terms say of one field: its value as JSON, and the index of the row that
// decided it (circulation.DefaultsRow for the environment).
type decided struct {
	value string
	row   int
}

// fieldsOf reads Terms by their JSON names, so that every field is checked, each with its
// source, and a field added to Terms is checked without changing the tests.
func fieldsOf(t *testing.T, terms circulation.Terms) map[string]decided {
	t.Helper()
	var m map[string]json.RawMessage
	raw, err := json.Marshal(terms)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &m))
	var from map[string]circulation.Source
	require.NoError(t, json.Unmarshal(m["from"], &from))
	delete(m, "from")
	require.Len(t, from, len(m), "every field has a source")
	out := make(map[string]decided, len(m))
	for name, value := range m {
		src, ok := from[name]
		require.True(t, ok, "%s has a source", name)
		out[name] = decided{value: string(value), row: src.Row}
	}
	return out
}

// The environment's defaults, every field, as Defaults makes them.
func TestDefaults(t *testing.T) {
	t.Parallel()
	terms := circulation.Table{}.Resolve("staff", "dvd", circulation.Defaults(env))
	require.Equal(t, map[string]decided{
		"loanPeriod": {`"336h0m0s"`, -1}, "renewals": {`2`, -1}, "maxLoans": {`10`, -1},
		"finePerDay": {`25`, -1}, "fineCap": {`"replacementPrice"`, -1}, "holds": {`"title"`, -1},
		"holdPickup": {`"72h0m0s"`, -1}, "lends": {`true`, -1}, "lostAfter": {`60`, -1},
		"replacementPrice": {`0`, -1},
	}, fieldsOf(t, terms))
	require.Equal(t, calendar.Period{Exact: 336 * time.Hour}, terms.LoanPeriod)
	require.Equal(t, circulation.Source{Key: circulation.Key{Group: "*", MaterialType: "*"}, Row: circulation.DefaultsRow}, terms.From.Lends)
	require.NoError(t, circulation.Table{Rows: []circulation.Row{circulation.Defaults(env)}}.Validate(), "the defaults are a valid row")
}

// For (staff, dvd), each of the four rows that apply, and the defaults under them, decides
// the fields it is the most specific to set; each field on its own.
func TestResolve(t *testing.T) {
	t.Parallel()
	staffDVD, staffAny, anyDVD, anyAny := row("staff", "dvd"), row("staff", "*"), row("*", "dvd"), row("*", "*")
	staffDVD.LoanPeriod = days(7)
	staffAny.LoanPeriod, staffAny.Renewals = days(28), new(5)
	anyDVD.LoanPeriod, anyDVD.Renewals, anyDVD.FinePerDay = days(3), new(0), new(int64(100))
	anyAny.LoanPeriod, anyAny.Renewals, anyAny.FinePerDay, anyAny.Holds = days(21), new(3), new(int64(10)), new(circulation.HoldsCopy)
	full := []circulation.Row{anyAny, anyDVD, staffAny, staffDVD, row("student", "book")}
	for _, c := range []struct {
		name                string
		rows                []circulation.Row
		group, materialType string
		then                map[string]decided // the fields not here are the defaults'
	}{
		{name: "the exact row wins", rows: full, group: "staff", materialType: "dvd",
			then: map[string]decided{"loanPeriod": {`"7d"`, 3}, "renewals": {`5`, 2}, "finePerDay": {`100`, 1}, "holds": {`"copy"`, 0}}},
		{name: "the group's row wins", rows: full, group: "staff", materialType: "book",
			then: map[string]decided{"loanPeriod": {`"28d"`, 2}, "renewals": {`5`, 2}, "finePerDay": {`10`, 0}, "holds": {`"copy"`, 0}}},
		{name: "the type's row wins", rows: full, group: "student", materialType: "dvd",
			then: map[string]decided{"loanPeriod": {`"3d"`, 1}, "renewals": {`0`, 1}, "finePerDay": {`100`, 1}, "holds": {`"copy"`, 0}}},
		{name: "the */* row wins", rows: full, group: "student", materialType: "book",
			then: map[string]decided{"loanPeriod": {`"21d"`, 0}, "renewals": {`3`, 0}, "finePerDay": {`10`, 0}, "holds": {`"copy"`, 0}}},
		{name: "names no row has", rows: full, group: "visitor", materialType: "map",
			then: map[string]decided{"loanPeriod": {`"21d"`, 0}, "renewals": {`3`, 0}, "finePerDay": {`10`, 0}, "holds": {`"copy"`, 0}}},
		{name: "a group's row beats a type's", rows: []circulation.Row{anyDVD, staffAny}, group: "staff", materialType: "dvd",
			then: map[string]decided{"loanPeriod": {`"28d"`, 1}, "renewals": {`5`, 1}, "finePerDay": {`100`, 0}}},
		{name: "a field only the */* row sets", rows: []circulation.Row{staffDVD, {Key: anyAny.Key, LostAfter: new(30)}},
			group: "staff", materialType: "dvd", then: map[string]decided{"loanPeriod": {`"7d"`, 0}, "lostAfter": {`30`, 1}}},
		{name: "no */* row", rows: []circulation.Row{staffAny, anyDVD}, group: "student", materialType: "book"},
		{name: "no */* row, a type's row", rows: []circulation.Row{staffAny, anyDVD}, group: "student", materialType: "dvd",
			then: map[string]decided{"loanPeriod": {`"3d"`, 1}, "renewals": {`0`, 1}, "finePerDay": {`100`, 1}}},
		{name: "the empty table", group: "staff", materialType: "dvd"},
		{name: "false and zero are set, not unset", group: "staff", materialType: "reference",
			rows: []circulation.Row{{Key: circulation.Key{Group: "*", MaterialType: "reference"}, Lends: new(false), MaxLoans: new(0),
				FineCap: &circulation.FineCap{Amount: 0}}},
			then: map[string]decided{"lends": {`false`, 0}, "maxLoans": {`0`, 0}, "fineCap": {`{"amount":0}`, 0}}},
		{name: "the defaults' key is ignored", rows: []circulation.Row{staffDVD}, group: "staff", materialType: "dvd",
			then: map[string]decided{"loanPeriod": {`"7d"`, 0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := fieldsOf(t, circulation.Table{}.Resolve(c.group, c.materialType, circulation.Defaults(env)))
			for name, d := range c.then {
				want[name] = d
			}
			got := circulation.Table{Rows: c.rows}.Resolve(c.group, c.materialType, circulation.Defaults(env))
			require.Equal(t, want, fieldsOf(t, got))
		})
	}
}

// A source names the key of the row that decided, as well as its index.
func TestResolveNamesTheRow(t *testing.T) {
	t.Parallel()
	anyDVD := row("*", "dvd")
	anyDVD.Renewals = new(0)
	terms := circulation.Table{Rows: []circulation.Row{row("staff", "*"), anyDVD}}.Resolve("staff", "dvd", circulation.Defaults(env))
	require.Equal(t, circulation.Source{Key: anyDVD.Key, Row: 1}, terms.From.Renewals)
	require.Equal(t, 0, terms.Renewals)
	raw, err := json.Marshal(terms.From.Renewals)
	require.NoError(t, err)
	require.JSONEq(t, `{"group":"*","materialType":"dvd","row":1}`, string(raw))
}

// Defaults that leave a field unset leave it at its zero value, from the defaults' place.
func TestResolveOverIncompleteDefaults(t *testing.T) {
	t.Parallel()
	terms := circulation.Table{}.Resolve("staff", "dvd", circulation.Row{Renewals: new(4)})
	require.Equal(t, 4, terms.Renewals)
	require.Zero(t, terms.MaxLoans)
	require.Equal(t, circulation.DefaultsRow, terms.From.MaxLoans.Row)
}
