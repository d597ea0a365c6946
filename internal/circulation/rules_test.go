package circulation_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/eventstore"
)

func fold(given ...circulation.Event) circulation.Rules {
	s := circulation.NewRules()
	for _, e := range given {
		s = circulation.Apply(s, e)
	}
	return s
}

// set is the "when" step: the command validated, then decided, as the service runs it.
func set(rows ...circulation.Row) func(circulation.Rules) ([]circulation.Event, error) {
	return func(s circulation.Rules) ([]circulation.Event, error) {
		c := circulation.SetRules{Rows: rows}
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return c.Decide(s)
	}
}

// Given events, when SetRules, then events or an error code.
func TestSetRules(t *testing.T) {
	t.Parallel()
	staff := row("staff", "*")
	staff.LoanPeriod = days(28)
	dvd := row("*", "dvd")
	dvd.Renewals = new(0)
	staffLonger := row("staff", "*")
	staffLonger.LoanPeriod = days(42)
	first := circulation.RulesSet{Rows: []circulation.Row{staff, dvd}}
	for _, c := range []struct {
		name  string
		given []circulation.Event
		when  func(circulation.Rules) ([]circulation.Event, error)
		then  []circulation.Event
		err   errs.Code
	}{
		{name: "a first table", when: set(staff, dvd), then: []circulation.Event{first}},
		{name: "the same table again", given: []circulation.Event{first}, when: set(staff, dvd)},
		{name: "the same table, rows made anew", given: []circulation.Event{first},
			when: set(circulation.Row{Key: staff.Key, LoanPeriod: days(28)}, circulation.Row{Key: dvd.Key, Renewals: new(0)})},
		{name: "a field changed", given: []circulation.Event{first}, when: set(staffLonger, dvd),
			then: []circulation.Event{circulation.RulesSet{Rows: []circulation.Row{staffLonger, dvd}}}},
		{name: "a field added", given: []circulation.Event{first}, when: set(staff, circulation.Row{Key: dvd.Key, Renewals: new(0), Lends: new(true)}),
			then: []circulation.Event{circulation.RulesSet{Rows: []circulation.Row{staff, {Key: dvd.Key, Renewals: new(0), Lends: new(true)}}}}},
		{name: "the rows in another order", given: []circulation.Event{first}, when: set(dvd, staff),
			then: []circulation.Event{circulation.RulesSet{Rows: []circulation.Row{dvd, staff}}}},
		{name: "the empty table over a table", given: []circulation.Event{first}, when: set(),
			then: []circulation.Event{circulation.RulesSet{Rows: []circulation.Row{}}}},
		{name: "the empty table on no table", when: set()},
		{name: "the first table back", given: []circulation.Event{first, circulation.RulesSet{Rows: []circulation.Row{dvd}}},
			when: set(staff, dvd), then: []circulation.Event{first}},
		{name: "a bad table", given: []circulation.Event{first}, when: set(staff, circulation.Row{Key: dvd.Key, Renewals: new(-1)}),
			err: errs.InvalidRequest},
		{name: "two rows with one key", when: set(staff, staffLonger), err: errs.InvalidRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.when(fold(c.given...))
			if c.err != "" {
				require.True(t, errs.Is(err, c.err), "want %s, got %v", c.err, err)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.then, got)
		})
	}
}

// Decide refuses a bad table even when Validate was not run first.
func TestDecideValidates(t *testing.T) {
	t.Parallel()
	_, err := circulation.SetRules{Rows: []circulation.Row{row("Staff", "*")}}.Decide(fold())
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
}

// The state is the last table set and the number of tables set; what it holds shares nothing
// with the events or commands it came from.
func TestRulesState(t *testing.T) {
	t.Parallel()
	require.Equal(t, circulation.Rules{}, fold())
	r := row("staff", "*")
	r.Renewals = new(4)
	event := circulation.RulesSet{Rows: []circulation.Row{r}}
	s := fold(event, circulation.RulesSet{Rows: []circulation.Row{}}, event)
	require.Equal(t, int64(3), s.Version)
	require.True(t, s.Table.Equal(circulation.Table{Rows: []circulation.Row{r}}))

	*event.Rows[0].Renewals = 9
	event.Rows[0].Group = "student"
	require.Equal(t, 4, *s.Table.Rows[0].Renewals, "the state has its own rows")
	require.Equal(t, "staff", s.Table.Rows[0].Group)

	kept := circulation.Clone(s)
	s = circulation.Apply(s, circulation.RulesSet{Rows: []circulation.Row{}})
	require.Len(t, kept.Table.Rows, 1, "the clone keeps its table")
	require.Equal(t, int64(3), kept.Version)

	cmd := circulation.SetRules{Rows: []circulation.Row{{Key: r.Key, Renewals: new(4)}}}
	events, err := cmd.Decide(s)
	require.NoError(t, err)
	*cmd.Rows[0].Renewals = 7
	require.Equal(t, 4, *events[0].(circulation.RulesSet).Rows[0].Renewals, "the event has its own rows")
}

// The stream, the event's name and its JSON are stored data; the event reads back through the
// type's codec.
func TestRulesSetIsStoredData(t *testing.T) {
	t.Parallel()
	typ := circulation.Type()
	require.Equal(t, "circulation-rules", circulation.StreamID())
	require.Equal(t, []string{"CirculationRulesSet"}, typ.EventTypes())

	r := row("*", "reference")
	r.Lends, r.FineCap, r.LoanPeriod = new(false), &circulation.FineCap{ReplacementPrice: true}, days(1)
	data, err := json.Marshal(circulation.RulesSet{Rows: []circulation.Row{r}})
	require.NoError(t, err)
	require.JSONEq(t, `{"rows":[{"group":"*","materialType":"reference","loanPeriod":"1d","fineCap":"replacementPrice","lends":false}]}`, string(data))

	empty, err := json.Marshal(must(circulation.SetRules{}.Decide(fold(circulation.RulesSet{Rows: []circulation.Row{r}})))[0])
	require.NoError(t, err)
	require.JSONEq(t, `{"rows":[]}`, string(empty), "the empty table is [], never null")

	decoded, err := typ.Decode(eventstore.Event{StreamID: circulation.StreamID(), Type: "CirculationRulesSet", Data: data})
	require.NoError(t, err)
	require.Equal(t, circulation.RulesSet{Rows: []circulation.Row{r}}, decoded)
	require.Positive(t, typ.Weigh(fold(decoded)))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
