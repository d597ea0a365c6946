package circulationhttp_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// member is the JSON of the member name of the object body.
func member(t *testing.T, body []byte, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m), "body: %s", body)
	require.Contains(t, m, name, "body: %s", body)
	return m[name]
}

// A table that is not valid is 400 InvalidRequest, whose detail names the row and the field
// and whose row and field members say them, and nothing is recorded.
func TestHTTPRulesBadTables(t *testing.T) {
	t.Parallel()
	good := `{"group":"*","materialType":"book","renewals":2}`
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		for name, c := range map[string]struct {
			row   string // the bad row, set after good
			field string // "" when the row as a whole is bad
		}{
			"a negative loan period":       {`{"group":"*","materialType":"dvd","loanPeriod":"-3d"}`, "loanPeriod"},
			"a negative duration":          {`{"group":"*","materialType":"dvd","holdPickup":"-4h"}`, "holdPickup"},
			"a zero loan period":           {`{"group":"*","materialType":"dvd","loanPeriod":"0s"}`, "loanPeriod"},
			"a period that is a number":    {`{"group":"*","materialType":"dvd","loanPeriod":21}`, "loanPeriod"},
			"negative renewals":            {`{"group":"*","materialType":"dvd","renewals":-1}`, "renewals"},
			"renewals as a string":         {`{"group":"*","materialType":"dvd","renewals":"2"}`, "renewals"},
			"a fraction of a loan":         {`{"group":"*","materialType":"dvd","maxLoans":1.5}`, "maxLoans"},
			"a negative fine":              {`{"group":"*","materialType":"dvd","finePerDay":-25}`, "finePerDay"},
			"a negative fine cap":          {`{"group":"*","materialType":"dvd","fineCap":{"amount":-1}}`, "fineCap"},
			"a fine cap of another shape":  {`{"group":"*","materialType":"dvd","fineCap":"price"}`, "fineCap"},
			"unknown holds":                {`{"group":"*","materialType":"dvd","holds":"shelf"}`, "holds"},
			"lost after no days":           {`{"group":"*","materialType":"dvd","lostAfter":0}`, "lostAfter"},
			"a negative replacement price": {`{"group":"*","materialType":"dvd","replacementPrice":-1}`, "replacementPrice"},
			"an unknown field":             {`{"group":"*","materialType":"dvd","colour":"red"}`, "colour"},
			"a field in other letters":     {`{"group":"*","materialType":"dvd","LoanPeriod":"7d"}`, "LoanPeriod"},
			"a field twice":                {`{"group":"*","materialType":"dvd","renewals":1,"renewals":2}`, "renewals"},
			"a group in capitals":          {`{"group":"Staff","materialType":"dvd"}`, "group"},
			"no material type":             {`{"group":"staff"}`, "materialType"},
			"a material type too long":     {`{"group":"*","materialType":"` + strings.Repeat("d", 33) + `"}`, "materialType"},
			"two rows with one key":        {good, ""},
			"a row that is no object":      {`["*","dvd"]`, ""},
		} {
			t.Run(name, func(t *testing.T) {
				body := `{"rows":[` + good + `,` + c.row + `]}`
				r := a.Send(t, http.MethodPut, "/circulation-rules", []byte(body), "If-Match", `"0"`)
				extensions := []string{"row"}
				if c.field != "" {
					extensions = append(extensions, "field")
				}
				p := apitest.RequireProblemWith(t, r, http.StatusBadRequest, "InvalidRequest", extensions...)
				assert.Contains(t, p.Detail, "rows[1]")
				assert.JSONEq(t, `1`, string(member(t, r.Body, "row")))
				if c.field != "" {
					assert.JSONEq(t, `"`+c.field+`"`, string(member(t, r.Body, "field")))
					assert.Contains(t, p.Detail, c.field)
				}
				assert.NotContains(t, p.Detail, "red", "never the value sent")
			})
		}
		t.Run("two rows with one key name the first", func(t *testing.T) {
			r := a.Send(t, http.MethodPut, "/circulation-rules", []byte(`{"rows":[`+good+`,`+good+`]}`), "If-Match", `"0"`)
			p := apitest.RequireProblemWith(t, r, http.StatusBadRequest, "InvalidRequest", "row")
			assert.Contains(t, p.Detail, "rows[1] (*/book)")
			assert.Contains(t, p.Detail, "rows[0]")
		})
		for name, body := range map[string]string{
			"no rows":           `{}`,
			"rows null":         `{"rows":null}`,
			"rows not an array": `{"rows":{"group":"*"}}`,
			"too many rows":     `{"rows":[` + manyRows(1001) + `]}`,
		} {
			t.Run(name, func(t *testing.T) {
				r := a.Send(t, http.MethodPut, "/circulation-rules", []byte(body), "If-Match", `"0"`)
				apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			})
		}
		t.Run("a long unknown name is cut short", func(t *testing.T) {
			name := strings.Repeat("x", 5000)
			body := `{"rows":[{"group":"*","materialType":"*","` + name + `":1}]}`
			r := a.Send(t, http.MethodPut, "/circulation-rules", []byte(body), "If-Match", `"0"`)
			apitest.RequireProblemWith(t, r, http.StatusBadRequest, "InvalidRequest", "row", "field")
			assert.Less(t, len(r.Body), 1000, "body: %.300s", r.Body)
		})
		body, etag := getRules(t, a)
		assert.Equal(t, `"0"`, etag)
		assert.JSONEq(t, `[]`, string(member(t, body, "rows")), "nothing recorded")
		t.Run("the most rows a table has is a table", func(t *testing.T) {
			r := a.Send(t, http.MethodPut, "/circulation-rules", []byte(`{"rows":[`+manyRows(1000)+`]}`), "If-Match", `"0"`)
			apitest.RequireResult(t, r, http.StatusCreated, "circulation-rules")
		})
	})
}

// manyRows is n rows of distinct keys, joined by commas.
func manyRows(n int) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = `{"group":"g` + strconv.Itoa(i) + `","materialType":"*","renewals":1}`
	}
	return strings.Join(rows, ",")
}
