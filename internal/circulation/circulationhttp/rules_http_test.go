package circulationhttp_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// environment is the configuration of the services these tests start: numbers of its own in
// each variable the defaults row is made of, so that the row is seen to come from them.
var environment = app.Config{LoanPeriod: 7 * 24 * time.Hour, RenewalsMax: 3, MaxLoans: 5, FinePerDay: 40,
	HoldPickup: 48 * time.Hour}

// defaultsRow is the */* row environment makes.
const defaultsRow = `{"group":"*","materialType":"*","loanPeriod":"168h0m0s","renewals":3,"maxLoans":5,"finePerDay":40,
	"fineCap":"replacementPrice","holds":"title","holdPickup":"48h0m0s","lends":true,"lostAfter":60,"replacementPrice":0}`

// putRules sends PUT /circulation-rules with rows, on the version ifMatch (no If-Match when
// "").
func putRules(t *testing.T, a *apitest.API, ifMatch string, rows []apitest.Obj, headers ...string) apitest.Response {
	t.Helper()
	if ifMatch != "" {
		headers = append(headers, "If-Match", ifMatch)
	}
	return a.Call(t, http.MethodPut, "/circulation-rules", apitest.Obj{"rows": rows}, headers...)
}

// getRules is GET /circulation-rules, checked to be 200 with an ETag that is its version.
func getRules(t *testing.T, a *apitest.API) (body []byte, etag string) {
	t.Helper()
	r := a.Get(t, "/circulation-rules")
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	apitest.RequireKeys(t, r.Body, "version", "rows", "defaults")
	return r.Body, r.Header.Get("ETag")
}

// A library that never set rules has the empty table at version 0, over the row of defaults
// its environment makes, and that row decides every field of every group and material type.
func TestHTTPRulesNeverSet(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, environment, func(t *testing.T, a *apitest.API) {
		body, etag := getRules(t, a)
		assert.Equal(t, `"0"`, etag)
		require.JSONEq(t, `{"version":0,"rows":[],"defaults":`+defaultsRow+`}`, string(body))
		head := a.Send(t, http.MethodHead, "/circulation-rules", nil)
		assert.Equal(t, http.StatusOK, head.Status)
		assert.Equal(t, `"0"`, head.Header.Get("ETag"), "HEAD answers as GET does")
		assert.Empty(t, head.Body)

		r := a.Get(t, "/circulation-rules/resolve?group=adult&materialType=book")
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		assert.Equal(t, `"0"`, r.Header.Get("ETag"))
		env := `{"group":"*","materialType":"*","row":-1}`
		require.JSONEq(t, `{"group":"adult","materialType":"book","version":0,"terms":{
			"loanPeriod":"168h0m0s","renewals":3,"maxLoans":5,"finePerDay":40,"fineCap":"replacementPrice",
			"holds":"title","holdPickup":"48h0m0s","lends":true,"lostAfter":60,"replacementPrice":0,
			"from":{"loanPeriod":`+env+`,"renewals":`+env+`,"maxLoans":`+env+`,"finePerDay":`+env+`,"fineCap":`+env+`,
				"holds":`+env+`,"holdPickup":`+env+`,"lends":`+env+`,"lostAfter":`+env+`,"replacementPrice":`+env+`}}}`, string(r.Body))

		apitest.RequireProblem(t, a.Get(t, "/circulation-rules?version=1"), http.StatusBadRequest, "InvalidRequest")
	})
}

// PUT /circulation-rules is made on the version the client read, in If-Match: without one it
// is 428, on a version the table has left 412 (saying the version it is at), and on the right
// one it records the table, whose version, and ETag, is one more.
func TestHTTPRulesIfMatch(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, environment, func(t *testing.T, a *apitest.API) {
		dvds := []apitest.Obj{{"group": "*", "materialType": "dvd", "loanPeriod": "7d", "renewals": 0}}

		t.Run("428 without If-Match", func(t *testing.T) {
			apitest.RequireProblem(t, putRules(t, a, "", dvds), http.StatusPreconditionRequired, "PreconditionRequired")
			_, etag := getRules(t, a)
			assert.Equal(t, `"0"`, etag, "nothing recorded")
		})
		t.Run("201 on the version read: the version and the ETag move on", func(t *testing.T) {
			r := putRules(t, a, `"0"`, dvds)
			res := apitest.RequireResult(t, r, http.StatusCreated, "circulation-rules")
			apitest.RequireEvent(t, res, "CirculationRulesSet",
				`{"rows":[{"group":"*","materialType":"dvd","loanPeriod":"7d","renewals":0}]}`)
			assert.Equal(t, `"1"`, r.Header.Get("ETag"))
			body, etag := getRules(t, a)
			assert.Equal(t, `"1"`, etag)
			require.JSONEq(t, `{"version":1,"rows":[{"group":"*","materialType":"dvd","loanPeriod":"7d","renewals":0}],
				"defaults":`+defaultsRow+`}`, string(body))
		})
		t.Run("412 on a version the table has left, with the version it is at", func(t *testing.T) {
			r := putRules(t, a, `"0"`, []apitest.Obj{})
			apitest.RequireProblemWith(t, r, http.StatusPreconditionFailed, "PreconditionFailed", "version")
			assert.JSONEq(t, `1`, string(member(t, r.Body, "version")))
			r = putRules(t, a, `"7"`, []apitest.Obj{})
			apitest.RequireProblemWith(t, r, http.StatusPreconditionFailed, "PreconditionFailed", "version")
			body, _ := getRules(t, a)
			assert.JSONEq(t, `1`, string(member(t, body, "version")), "nothing recorded")
		})
		t.Run("200 and the same ETag for the table it is already", func(t *testing.T) {
			r := putRules(t, a, "1", dvds) // a bare number is read as the ETag
			apitest.RequireResult(t, r, http.StatusOK, "circulation-rules")
			assert.Equal(t, `"1"`, r.Header.Get("ETag"))
		})
		t.Run("the empty table is a table too: recorded, version 2", func(t *testing.T) {
			r := putRules(t, a, `"1"`, []apitest.Obj{})
			apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "circulation-rules"),
				"CirculationRulesSet", `{"rows":[]}`)
			assert.Equal(t, `"2"`, r.Header.Get("ETag"))
		})
		t.Run("400 for an If-Match that is not one ETag of the table", func(t *testing.T) {
			for name, headers := range map[string][]string{
				"weak":         {"If-Match", `W/"2"`},
				"any":          {"If-Match", `*`},
				"not a number": {"If-Match", `"two"`},
				"negative":     {"If-Match", `"-1"`},
				"signed":       {"If-Match", `"+2"`},
				"escaped":      {"If-Match", `"\x32"`},
				"a list":       {"If-Match", `"1", "2"`},
				"twice":        {"If-Match", `"2"`, "If-Match", `"2"`},
				"too big":      {"If-Match", `"99999999999999999999"`},
			} {
				t.Run(name, func(t *testing.T) {
					r := a.Call(t, http.MethodPut, "/circulation-rules", apitest.Obj{"rows": dvds}, headers...)
					apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
		})
		apitest.RequireBodyErrors(t, a, http.MethodPut, "/circulation-rules", `{"rows":[]}`, "If-Match", `"2"`)
	})
}

// A PUT sent again under its Idempotency-Key is the first answer, byte for byte, ETag too,
// even once the table has moved on; the key with another table or another If-Match is 422.
func TestHTTPRulesIdempotencyKey(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, environment, func(t *testing.T, a *apitest.API) {
		staff := []apitest.Obj{{"group": "staff", "materialType": "*", "maxLoans": 50}}
		first := putRules(t, a, `"0"`, staff, "Idempotency-Key", "rules-1")
		apitest.RequireResult(t, first, http.StatusCreated, "circulation-rules")

		again := putRules(t, a, `"0"`, staff, "Idempotency-Key", "rules-1")
		apitest.RequireReplay(t, first, again)
		assert.Equal(t, first.Header.Get("ETag"), again.Header.Get("ETag"))

		apitest.RequireResult(t, putRules(t, a, `"1"`, []apitest.Obj{}), http.StatusCreated, "circulation-rules")
		apitest.RequireReplay(t, first, putRules(t, a, `"0"`, staff, "Idempotency-Key", "rules-1"))

		apitest.RequireProblem(t, putRules(t, a, `"0"`, []apitest.Obj{}, "Idempotency-Key", "rules-1"),
			http.StatusUnprocessableEntity, "IdempotencyKeyReused")
		apitest.RequireProblem(t, putRules(t, a, `"2"`, staff, "Idempotency-Key", "rules-1"),
			http.StatusUnprocessableEntity, "IdempotencyKeyReused")

		unchanged := putRules(t, a, `"2"`, []apitest.Obj{}, "Idempotency-Key", "rules-2")
		apitest.RequireResult(t, unchanged, http.StatusOK, "circulation-rules")
		apitest.RequireReplay(t, unchanged, putRules(t, a, `"2"`, []apitest.Obj{}, "Idempotency-Key", "rules-2"))
		assert.Equal(t, `"2"`, unchanged.Header.Get("ETag"))
		_, etag := getRules(t, a)
		assert.Equal(t, `"2"`, etag, "a keyed PUT that changed nothing leaves the version")
	})
}

// Librarians who read one version and change it at once: one table is recorded, and every
// other PUT is 412, however the appends race.
func TestHTTPRulesConcurrentPuts(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, environment, func(t *testing.T, a *apitest.API) {
		const librarians = 4
		statuses := make(chan int, librarians)
		var wg sync.WaitGroup
		for i := range librarians {
			wg.Go(func() {
				body := apitest.MustJSON(t, apitest.Obj{"rows": []apitest.Obj{{"group": "*", "materialType": "*", "renewals": i}}})
				r, err := a.TrySend(http.MethodPut, "/circulation-rules", body, "If-Match", `"0"`)
				assert.NoError(t, err)
				statuses <- r.Status
			})
		}
		wg.Wait()
		close(statuses)
		counts := map[int]int{}
		for s := range statuses {
			counts[s]++
		}
		assert.Equal(t, map[int]int{http.StatusCreated: 1, http.StatusPreconditionFailed: librarians - 1}, counts)
		_, etag := getRules(t, a)
		assert.Equal(t, `"1"`, etag)
	})
}
