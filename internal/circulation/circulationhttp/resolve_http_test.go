package circulationhttp_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/apitest"
)

// source is a CirculationSource: the row that decided a field.
type source struct {
	Group        string `json:"group"`
	MaterialType string `json:"materialType"`
	Row          int    `json:"row"`
}

// resolution is GET /circulation-rules/resolve.
type resolution struct {
	Group        string `json:"group"`
	MaterialType string `json:"materialType"`
	Version      int64  `json:"version"`
	Terms        struct {
		LoanPeriod string          `json:"loanPeriod"`
		Renewals   int             `json:"renewals"`
		MaxLoans   int             `json:"maxLoans"`
		FinePerDay int64           `json:"finePerDay"`
		FineCap    json.RawMessage `json:"fineCap"`
		Holds      string          `json:"holds"`
		HoldPickup string          `json:"holdPickup"`
		Lends      bool            `json:"lends"`
		LostAfter  int             `json:"lostAfter"`
		// ReplacementPrice is what a lost copy with no price of its own costs.
		ReplacementPrice int64 `json:"replacementPrice"`
		From             map[string]source
	} `json:"terms"`
}

func resolve(t *testing.T, a *apitest.API, group, materialType string) resolution {
	t.Helper()
	r := a.Get(t, "/circulation-rules/resolve?group="+group+"&materialType="+materialType)
	var res resolution
	apitest.RequireJSON(t, r, &res)
	assert.Equal(t, `"1"`, r.Header.Get("ETag"))
	require.Equal(t, group, res.Group)
	require.Equal(t, materialType, res.MaterialType)
	require.EqualValues(t, 1, res.Version)
	return res
}

// Each field is decided by the most specific row that sets it: (group, type), then
// (group, *), then (*, type), then (*, *), then the environment's row; resolve says which, by
// its key and its index in the table as it was set.
func TestHTTPResolve(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, environment, func(t *testing.T, a *apitest.API) {
		rows := []apitest.Obj{
			{"group": "staff", "materialType": "dvd", "holds": "copy"},                                                        // 0: group+type
			{"group": "*", "materialType": "dvd", "loanPeriod": "7d", "renewals": 0, "maxLoans": 3, "replacementPrice": 2500}, // 1: type
			{"group": "staff", "materialType": "*", "loanPeriod": "42d", "maxLoans": 50},                                      // 2: group
			{"group": "*", "materialType": "*", "finePerDay": 10, "renewals": 1},                                              // 3: */*
		}
		apitest.RequireResult(t, putRules(t, a, `"0"`, rows), http.StatusCreated, "circulation-rules")
		exact := source{"staff", "dvd", 0}
		byType := source{"*", "dvd", 1}
		byGroup := source{"staff", "*", 2}
		anyRow := source{"*", "*", 3}
		env := source{"*", "*", -1}

		t.Run("group and type", func(t *testing.T) {
			res := resolve(t, a, "staff", "dvd")
			assert.Equal(t, "copy", res.Terms.Holds)
			assert.Equal(t, exact, res.Terms.From["holds"])
			assert.Equal(t, "42d", res.Terms.LoanPeriod, "the group's row comes before the type's")
			assert.Equal(t, byGroup, res.Terms.From["loanPeriod"])
			assert.Equal(t, 50, res.Terms.MaxLoans)
			assert.Equal(t, byGroup, res.Terms.From["maxLoans"])
			assert.Equal(t, 0, res.Terms.Renewals, "the type's row comes before */*")
			assert.Equal(t, byType, res.Terms.From["renewals"])
			assert.EqualValues(t, 10, res.Terms.FinePerDay)
			assert.Equal(t, anyRow, res.Terms.From["finePerDay"])
			assert.Equal(t, 60, res.Terms.LostAfter)
			assert.Equal(t, env, res.Terms.From["lostAfter"])
			assert.EqualValues(t, 2500, res.Terms.ReplacementPrice, "a lost dvd's price is the type's")
			assert.Equal(t, byType, res.Terms.From["replacementPrice"])
			assert.JSONEq(t, `"replacementPrice"`, string(res.Terms.FineCap))
			assert.Equal(t, env, res.Terms.From["fineCap"])
			assert.Equal(t, "48h0m0s", res.Terms.HoldPickup)
			assert.Equal(t, env, res.Terms.From["holdPickup"])
			assert.True(t, res.Terms.Lends)
			assert.Equal(t, env, res.Terms.From["lends"])
		})
		t.Run("group", func(t *testing.T) {
			res := resolve(t, a, "staff", "book")
			assert.Equal(t, "42d", res.Terms.LoanPeriod)
			assert.Equal(t, byGroup, res.Terms.From["loanPeriod"])
			assert.Equal(t, byGroup, res.Terms.From["maxLoans"])
			assert.Equal(t, 1, res.Terms.Renewals)
			assert.Equal(t, anyRow, res.Terms.From["renewals"])
			assert.Equal(t, "title", res.Terms.Holds)
			assert.Equal(t, env, res.Terms.From["holds"])
		})
		t.Run("type", func(t *testing.T) {
			res := resolve(t, a, "adult", "dvd")
			assert.Equal(t, "7d", res.Terms.LoanPeriod)
			assert.Equal(t, byType, res.Terms.From["loanPeriod"])
			assert.Equal(t, 3, res.Terms.MaxLoans)
			assert.Equal(t, byType, res.Terms.From["maxLoans"])
			assert.Equal(t, byType, res.Terms.From["renewals"])
			assert.Equal(t, env, res.Terms.From["holds"])
		})
		t.Run("*/* and the environment", func(t *testing.T) {
			res := resolve(t, a, "adult", "book")
			assert.Equal(t, 1, res.Terms.Renewals)
			assert.Equal(t, anyRow, res.Terms.From["renewals"])
			assert.Equal(t, anyRow, res.Terms.From["finePerDay"])
			assert.Equal(t, "168h0m0s", res.Terms.LoanPeriod)
			assert.Equal(t, env, res.Terms.From["loanPeriod"])
			assert.Equal(t, 5, res.Terms.MaxLoans)
			assert.Equal(t, env, res.Terms.From["maxLoans"])
		})
		t.Run("400 for what is not one group and one material type", func(t *testing.T) {
			for name, query := range map[string]string{
				"no group":            "materialType=book",
				"no material type":    "group=adult",
				"nothing":             "",
				"an empty group":      "group=&materialType=book",
				"every group":         "group=*&materialType=book",
				"every material type": "group=adult&materialType=%2A",
				"capitals":            "group=Adult&materialType=book",
				"too long":            "group=adult&materialType=" + "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
				"a group twice":       "group=adult&group=staff&materialType=book",
				"another parameter":   "group=adult&materialType=book&version=1",
				"a malformed query":   "group=adult&materialType=%zz",
			} {
				t.Run(name, func(t *testing.T) {
					apitest.RequireProblem(t, a.Get(t, "/circulation-rules/resolve?"+query), http.StatusBadRequest, "InvalidRequest")
				})
			}
		})
	})
}
