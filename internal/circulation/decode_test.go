package circulation_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/calendar"
	"library/internal/circulation"
	"library/internal/errs"
)

// A row with every field, as a client writes it.
const fullRow = `{"group": "staff", "materialType": "dvd", "loanPeriod": "7d", "renewals": 1, "maxLoans": 3,
	"finePerDay": 100, "fineCap": {"amount": 500}, "holds": "copy", "holdPickup": "48h", "lends": true, "lostAfter": 30,
	"replacementPrice": 2500}`

// A table decodes field for field, and encodes back to what it decoded from.
func TestDecodeTable(t *testing.T) {
	t.Parallel()
	body := `{"rows": [` + fullRow + `, {"group": "*", "materialType": "reference", "lends": false, "fineCap": "replacementPrice"}]}`
	table, err := circulation.DecodeTable([]byte(body))
	require.NoError(t, err)
	want := circulation.Row{
		Key:        circulation.Key{Group: "staff", MaterialType: "dvd"},
		LoanPeriod: days(7), Renewals: new(1), MaxLoans: new(3), FinePerDay: new(int64(100)),
		FineCap: &circulation.FineCap{Amount: 500}, Holds: new(circulation.HoldsCopy),
		HoldPickup: &calendar.Period{Exact: 48 * time.Hour}, Lends: new(true), LostAfter: new(30),
		ReplacementPrice: new(int64(2500)),
	}
	reference := circulation.Row{Key: circulation.Key{Group: "*", MaterialType: "reference"}, Lends: new(false),
		FineCap: &circulation.FineCap{ReplacementPrice: true}}
	require.Equal(t, circulation.Table{Rows: []circulation.Row{want, reference}}, table)
	require.NoError(t, table.Validate())

	encoded, err := json.Marshal(table)
	require.NoError(t, err)
	// A duration is written back as Go writes one (package calendar): 48h0m0s for 48h.
	require.JSONEq(t, `{"rows": [{"group": "staff", "materialType": "dvd", "loanPeriod": "7d", "renewals": 1, "maxLoans": 3,
		"finePerDay": 100, "fineCap": {"amount": 500}, "holds": "copy", "holdPickup": "48h0m0s", "lends": true, "lostAfter": 30,
		"replacementPrice": 2500},
		{"group": "*", "materialType": "reference", "lends": false, "fineCap": "replacementPrice"}]}`, string(encoded))
	again, err := circulation.DecodeTable(encoded)
	require.NoError(t, err)
	require.True(t, again.Equal(table))
}

// A field given as null is left unset; the empty array is the empty table.
func TestDecodeTableNullsAndEmpty(t *testing.T) {
	t.Parallel()
	table, err := circulation.DecodeTable([]byte(`{"rows": [{"group": "*", "materialType": "*", "renewals": null, "fineCap": null}]}`))
	require.NoError(t, err)
	require.Equal(t, circulation.Table{Rows: []circulation.Row{row("*", "*")}}, table)
	table, err = circulation.DecodeTable([]byte(` {"rows": []} `))
	require.NoError(t, err)
	require.Empty(t, table.Rows)
}

// Decoding refuses what is not a table, saying where and which field, never the value.
func TestDecodeTableRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body, detail, field string
	}{
		{"an unknown field in a row", `{"rows": [{"group": "*", "materialType": "*"}, {"group": "a", "fineCapp": 5}]}`,
			`rows[1] has an unknown field "fineCapp"`, "fineCapp"},
		{"a field in other letters", `{"rows": [{"group": "*", "LoanPeriod": "7d"}]}`, `rows[0] has an unknown field "LoanPeriod"`, "LoanPeriod"},
		{"a field twice", `{"rows": [{"group": "*", "renewals": 1, "renewals": 2}]}`, `rows[0] has the field "renewals" twice`, "renewals"},
		{"an unknown field in the body", `{"rows": [], "version": 3}`, `the body has an unknown field "version"`, ""},
		{"rows twice", `{"rows": [], "rows": []}`, `the body has the field "rows" twice`, ""},
		{"no rows", `{}`, "rows is required", ""},
		{"rows null", `{"rows": null}`, "rows must be an array", ""},
		{"rows an object", `{"rows": {}}`, "rows must be an array", ""},
		{"a row null", `{"rows": [null]}`, "rows[0] must be a JSON object", ""},
		{"not an object", `[]`, "the body must be a JSON object", ""},
		{"something after", `{"rows": []} {}`, "with nothing after it", ""},
		{"not JSON", `{"rows": [}`, "", ""},
		{"a period in words", `{"rows": [{"loanPeriod": "three weeks"}]}`, "rows[0]: loanPeriod must be a period more than zero", "loanPeriod"},
		{"a zero period", `{"rows": [{"holdPickup": "0d"}]}`, "rows[0]: holdPickup must be a period", "holdPickup"},
		{"a period as a number", `{"rows": [{"loanPeriod": 21}]}`, "rows[0]: loanPeriod must be a period", "loanPeriod"},
		{"renewals as a string", `{"rows": [{"renewals": "2"}]}`, "rows[0]: renewals must be a whole number", "renewals"},
		{"renewals a fraction", `{"rows": [{"renewals": 2.5}]}`, "rows[0]: renewals must be a whole number", "renewals"},
		{"lends as a string", `{"rows": [{"lends": "no"}]}`, "rows[0]: lends must be true or false", "lends"},
		{"holds as a number", `{"rows": [{"holds": 1}]}`, `rows[0]: holds must be "title", "copy" or "none"`, "holds"},
		{"a group as a number", `{"rows": [{"group": 7}]}`, "rows[0]: group must be a string", "group"},
		{"a cap in another word", `{"rows": [{"fineCap": "price"}]}`, `rows[0]: fineCap must be {"amount": cents} or "replacementPrice"`, "fineCap"},
		{"a cap without an amount", `{"rows": [{"fineCap": {}}]}`, "fineCap must be", "fineCap"},
		{"a cap with more", `{"rows": [{"fineCap": {"amount": 5, "currency": "EUR"}}]}`, "fineCap must be", "fineCap"},
		{"a cap in other letters", `{"rows": [{"fineCap": {"Amount": 5}}]}`, "fineCap must be", "fineCap"},
		{"a cap of null", `{"rows": [{"fineCap": {"amount": null}}]}`, "fineCap must be", "fineCap"},
		{"a cap a fraction", `{"rows": [{"fineCap": {"amount": 2.5}}]}`, "fineCap must be", "fineCap"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := circulation.DecodeTable([]byte(c.body))
			require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
			e, _ := errors.AsType[*errs.Error](err)
			require.Contains(t, e.Detail, c.detail)
			if c.field != "" {
				require.Equal(t, c.field, e.Extensions["field"])
			}
			switch {
			case strings.HasPrefix(c.detail, "rows["):
				// rows[N], N one digit in these cases: the row's index is its extension too.
				require.Equal(t, int(c.detail[5]-'0'), e.Extensions["row"], "the row, as an extension")
			case strings.HasPrefix(c.detail, "the body"), strings.HasPrefix(c.detail, "rows "):
				require.NotContains(t, e.Extensions, "row", "a refusal of the body names no row")
			}
			for _, value := range []string{`"three weeks"`, `"price"`, `"EUR"`, `"no"`} {
				require.NotContains(t, e.Detail, value, "the value is not echoed")
			}
		})
	}
}

// An unknown field's name is quoted, escaped and cut short in the detail, and cut short in the
// field extension, without splitting a character.
func TestDecodeTableQuotesUnknownNames(t *testing.T) {
	t.Parallel()
	_, err := circulation.DecodeTable([]byte(`{"rows": [{"a\nbxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": 1}]}`))
	require.Error(t, err)
	e, _ := errors.AsType[*errs.Error](err)
	require.NotContains(t, e.Detail, "\n")
	require.Contains(t, e.Detail, `"a\nbxxx`)
	require.Contains(t, e.Detail, `…`)
	require.Less(t, len(e.Detail), 120)

	_, err = circulation.DecodeTable([]byte(`{"rows": [{"` + strings.Repeat("x", 39) + `é": 1}]}`))
	e, _ = errors.AsType[*errs.Error](err)
	require.Equal(t, strings.Repeat("x", 39), e.Extensions["field"], "é's two bytes would end at 41")
	require.Equal(t, 0, e.Extensions["row"])
}

// A fine cap is one of two shapes, in stored data as in requests.
func TestFineCapJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]circulation.FineCap{
		`{"amount": 500}`: {Amount: 500}, `{"amount":0}`: {}, `"replacementPrice"`: {ReplacementPrice: true},
	} {
		var got circulation.FineCap
		require.NoError(t, json.Unmarshal([]byte(in), &got), in)
		require.Equal(t, want, got, in)
		out, err := json.Marshal(got)
		require.NoError(t, err)
		require.JSONEq(t, in, string(out))
	}
	for _, bad := range []string{`null`, `{}`, `"ReplacementPrice"`, `5`, `{"amount": "5"}`, `{"amount": 1, "amount2": 2}`, `[]`} {
		var got circulation.FineCap
		require.Error(t, json.Unmarshal([]byte(bad), &got), bad)
	}
}
