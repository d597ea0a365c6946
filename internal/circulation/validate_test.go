package circulation_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/calendar"
	"library/internal/circulation"
	"library/internal/errs"
)

// with returns a row keyed staff/dvd changed by set.
func with(set func(*circulation.Row)) circulation.Row {
	r := row("staff", "dvd")
	set(&r)
	return r
}

// Each refusal is an InvalidRequest whose detail names the row, by index and key, and the
// field, and whose extensions say them too.
func TestValidateRefuses(t *testing.T) {
	t.Parallel()
	good := row("*", "*")
	good.LoanPeriod = days(21)
	for _, c := range []struct {
		name   string
		bad    circulation.Row
		field  string
		detail string // more of the detail than the row and field
	}{
		{"a zero period", with(func(r *circulation.Row) { r.LoanPeriod = &calendar.Period{} }), "loanPeriod", "more than zero"},
		{"a negative period of days", with(func(r *circulation.Row) { r.LoanPeriod = &calendar.Period{Days: -3} }), "loanPeriod", ""},
		{"a negative exact period", with(func(r *circulation.Row) { r.HoldPickup = &calendar.Period{Exact: -time.Hour} }), "holdPickup", ""},
		{"days and a duration at once", with(func(r *circulation.Row) { r.LoanPeriod = &calendar.Period{Days: 2, Exact: time.Hour} }), "loanPeriod", ""},
		{"a period too long", with(func(r *circulation.Row) { r.HoldPickup = &calendar.Period{Days: 100_000} }), "holdPickup", ""},
		{"negative renewals", with(func(r *circulation.Row) { r.Renewals = new(-1) }), "renewals", "from 0 to"},
		{"renewals over the bound", with(func(r *circulation.Row) { r.Renewals = new(circulation.MaxCount + 1) }), "renewals", ""},
		{"negative maxLoans", with(func(r *circulation.Row) { r.MaxLoans = new(-2) }), "maxLoans", ""},
		{"a negative fine", with(func(r *circulation.Row) { r.FinePerDay = new(int64(-1)) }), "finePerDay", "cents"},
		{"a fine over the bound", with(func(r *circulation.Row) { r.FinePerDay = new(int64(100_000_001)) }), "finePerDay", ""},
		{"a negative cap", with(func(r *circulation.Row) { r.FineCap = &circulation.FineCap{Amount: -1} }), "fineCap", ""},
		{"a cap both amount and price", with(func(r *circulation.Row) { r.FineCap = &circulation.FineCap{Amount: 5, ReplacementPrice: true} }), "fineCap", ""},
		{"an unknown holds", with(func(r *circulation.Row) { r.Holds = new(circulation.Holds("item")) }), "holds", `"title", "copy" or "none"`},
		{"an empty holds", with(func(r *circulation.Row) { r.Holds = new(circulation.Holds("")) }), "holds", ""},
		{"lostAfter zero", with(func(r *circulation.Row) { r.LostAfter = new(0) }), "lostAfter", "from 1 to"},
		{"a negative replacement price", with(func(r *circulation.Row) { r.ReplacementPrice = new(int64(-1)) }), "replacementPrice", "cents"},
		{"a replacement price over the bound", with(func(r *circulation.Row) { r.ReplacementPrice = new(int64(100_000_001)) }), "replacementPrice", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := circulation.Table{Rows: []circulation.Row{good, c.bad}}.Validate()
			requireRefusal(t, err, 1, c.field, "rows[1] (staff/dvd): "+c.field+" must be ", c.detail)
		})
	}
}

// A bad name is refused naming the row by its index and the field, but not echoed.
func TestValidateRefusesNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		group, materialType, field string
	}{
		{"", "dvd", "group"}, {"staff", "", "materialType"}, {"Staff", "dvd", "group"}, {"staff", "DVD", "materialType"},
		{"staff members", "dvd", "group"}, {"staff", "dvd.hd", "materialType"}, {"**", "dvd", "group"}, {"staff", "dvd\n", "materialType"},
		{strings.Repeat("s", circulation.MaxNameLength+1), "dvd", "group"}, {"stäff", "dvd", "group"},
	} {
		err := circulation.Table{Rows: []circulation.Row{row("*", "*"), row("staff", "book"), row(c.group, c.materialType)}}.Validate()
		requireRefusal(t, err, 2, c.field, "rows[2]: "+c.field+` must be "*" or 1 to 32 characters`, "")
		if c.group != "" && c.materialType != "" {
			require.NotContains(t, err.Error(), c.group+"/"+c.materialType, "the name is not echoed")
		}
	}
}

// Two rows with one key are refused, naming both.
func TestValidateRefusesTwoRowsWithOneKey(t *testing.T) {
	t.Parallel()
	err := circulation.Table{Rows: []circulation.Row{row("staff", "*"), row("*", "dvd"), row("staff", "*")}}.Validate()
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
	require.Contains(t, err.Error(), "rows[2] (staff/*): has the group and materialType of rows[0]")
	e, _ := errors.AsType[*errs.Error](err)
	require.Equal(t, 2, e.Extensions["row"])
}

// A table of more than MaxRows rows is refused.
func TestValidateRefusesTooManyRows(t *testing.T) {
	t.Parallel()
	rows := make([]circulation.Row, circulation.MaxRows+1)
	require.True(t, errs.Is(circulation.Table{Rows: rows}.Validate(), errs.InvalidRequest))
}

// What the limits allow, and names of every kind, are valid; so is the empty table.
func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	edge := row("a", strings.Repeat("z", circulation.MaxNameLength))
	edge.LoanPeriod, edge.HoldPickup = &calendar.Period{Exact: time.Second}, &calendar.Period{Days: 3660}
	edge.Renewals, edge.MaxLoans, edge.LostAfter = new(0), new(circulation.MaxCount), new(1)
	edge.FinePerDay, edge.FineCap = new(int64(0)), &circulation.FineCap{Amount: 100_000_000}
	edge.Holds, edge.Lends, edge.ReplacementPrice = new(circulation.HoldsNone), new(false), new(int64(100_000_000))
	for _, table := range []circulation.Table{
		{},
		{Rows: []circulation.Row{}},
		{Rows: []circulation.Row{row("*", "*"), row("staff", "*"), row("*", "dvd"), row("staff", "dvd"), row("grad_student-2", "e-book_7")}},
		{Rows: []circulation.Row{edge, circulation.Defaults(env)}},
	} {
		require.NoError(t, table.Validate())
	}
}

// requireRefusal checks that err is an InvalidRequest about the row and field, whose detail
// holds each of parts.
func requireRefusal(t *testing.T, err error, row int, field string, parts ...string) {
	t.Helper()
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
	e, _ := errors.AsType[*errs.Error](err)
	for _, part := range parts {
		require.Contains(t, e.Detail, part)
	}
	require.Equal(t, row, e.Extensions["row"])
	require.Equal(t, field, e.Extensions["field"])
}
