package booksapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// setRules replaces the circulation rules, read at the version GET gives, and checks the 201.
func setRules(t *testing.T, a *apitest.API, rows ...apitest.Obj) {
	t.Helper()
	got := a.Get(t, "/circulation-rules")
	require.Equal(t, http.StatusOK, got.Status, "body: %s", got.Body)
	r := a.Call(t, http.MethodPut, "/circulation-rules", apitest.Obj{"rows": rows}, "If-Match", got.Header.Get("ETag"))
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
}

// lentTerms are a BookLent's or a LoanRenewed's due time and terms.
type lentTerms struct {
	DueAt time.Time `json:"dueAt"`
	Terms *struct {
		Group           string `json:"group"`
		MaterialType    string `json:"materialType"`
		FinePerDay      int64  `json:"finePerDay"`
		RenewalsAllowed int    `json:"renewalsAllowed"`
		RulesVersion    int64  `json:"rulesVersion"`
	} `json:"terms"`
}

func termsOf(t *testing.T, e apitest.Event) lentTerms {
	t.Helper()
	var l lentTerms
	require.NoError(t, json.Unmarshal(e.Data, &l))
	require.NotNil(t, l.Terms, "%s records its terms: %s", e.Type, e.Data)
	return l
}

// A rule changed while loans are out: the loans made before keep their terms (their due time,
// and the fine their late return costs), new loans and renewals take the new ones. Whole days
// end at the end of a day, and move off a closed day; a late return counts open days only.
func TestHTTPLoansKeepTheTermsTheyWereMadeOn(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{}), func(t *testing.T, a *apitest.API) {
		// T0 is Tuesday 1 December 2026, 09:00 UTC.
		apitest.RequireResult(t, a.Call(t, http.MethodPut, "/calendar/closed/2026-12-08", nil), http.StatusCreated, "calendar-library")
		setRules(t, a, apitest.Obj{"group": "*", "materialType": "*", "loanPeriod": "7d", "finePerDay": 10, "renewals": 1})
		for _, id := range []string{"dune", "emma", "hobbit"} {
			apitest.AddBook(t, a, id)
		}
		old := termsOf(t, apitest.Lend(t, a, "dune", "loan-1", "m-old").Events[0])
		assert.Equal(t, time.Date(2026, 12, 9, 23, 59, 59, 0, time.UTC), old.DueAt, "7 days end on the 8th, closed: the next open day")
		assert.Equal(t, int64(10), old.Terms.FinePerDay)
		assert.Equal(t, "adult", old.Terms.Group)
		assert.Equal(t, "book", old.Terms.MaterialType)
		assert.Equal(t, int64(1), old.Terms.RulesVersion)
		apitest.Lend(t, a, "emma", "loan-2", "m-renews")

		setRules(t, a, apitest.Obj{"group": "*", "materialType": "*", "loanPeriod": "14d", "finePerDay": 50, "renewals": 3})
		fresh := termsOf(t, apitest.Lend(t, a, "hobbit", "loan-3", "m-new").Events[0])
		assert.Equal(t, time.Date(2026, 12, 15, 23, 59, 59, 0, time.UTC), fresh.DueAt)
		assert.Equal(t, int64(50), fresh.Terms.FinePerDay)
		assert.Equal(t, int64(2), fresh.Terms.RulesVersion)
		renewed := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/emma/loans/loan-2/renewals", nil, "Idempotency-Key", "r-1"),
			http.StatusCreated, "book-emma")
		again := termsOf(t, renewed.Events[0])
		assert.Equal(t, time.Date(2026, 12, 23, 23, 59, 59, 0, time.UTC), again.DueAt, "14 days from the old due time")
		assert.Equal(t, 3, again.Terms.RenewalsAllowed, "a renewal takes the rules as they are now")
		assert.Equal(t, int64(50), again.Terms.FinePerDay)

		apitest.Eventually(t, 10*time.Second, func() bool {
			return renewalsLeft(t, a, "m-old") == 1 && renewalsLeft(t, a, "m-renews") == 2
		}, "the loans view counts the renewals each loan's terms allow: 1 of 1 left, 2 of 3")

		// Back on Saturday the 12th, 12:00: the 10th, 11th and 12th are open days late.
		a.Clock.Advance(11*24*time.Hour + 3*time.Hour)
		back := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
		apitest.RequireEventData(t, back.Events[0], "lateDays", 3)
		apitest.RequireEventData(t, back.Events[0], "fine", 30)
		apitest.Eventually(t, 10*time.Second, func() bool { return apitest.GetAccount(t, a, "m-old").Balance == 30 },
			"the fine of the old loan's terms: 3 days at 10, not at 50")
	})
}

// The rules' row for a group and a material type decides: a limit on one type names its rule,
// a type the rules lend nobody is refused, and a member's group and a copy's type are set by
// librarians.
func TestHTTPGroupsAndMaterialTypes(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		setRules(t, a,
			apitest.Obj{"group": "*", "materialType": "dvd", "maxLoans": 1, "loanPeriod": "3d"},
			apitest.Obj{"group": "*", "materialType": "reference", "lends": false},
			apitest.Obj{"group": "child", "materialType": "*", "maxLoans": 2})
		for i, typ := range []string{"dvd", "dvd", "reference", "book", "book", "book"} {
			id := fmt.Sprintf("c-%d", i)
			apitest.AddBook(t, a, id)
			if typ != "book" {
				r := a.Call(t, http.MethodPut, "/books/"+id+"/material-type", apitest.Obj{"materialType": typ, "replacementPrice": 2500})
				apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "book-"+id), "MaterialTypeSet",
					fmt.Sprintf(`{"materialType":%q,"replacementPrice":2500}`, typ))
			}
		}
		apitest.Lend(t, a, "c-0", "l-0", "m-adult")
		p := apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books/c-1/loans", apitest.Obj{"loanId": "l-1", "memberId": "m-adult"}),
			http.StatusConflict, "LoanLimitReached")
		assert.Contains(t, p.Detail, "1 dvd loan at once for adult")
		apitest.Lend(t, a, "c-3", "l-3", "m-adult") // books are another type's limit
		p = apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books/c-2/loans", apitest.Obj{"loanId": "l-2", "memberId": "m-adult"}),
			http.StatusConflict, "NotLendable")
		assert.Contains(t, p.Detail, "reference")

		r := a.Call(t, http.MethodPut, "/accounts/m-kid/group", apitest.Obj{"group": "Child"})
		apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "account-m-kid"), "PatronGroupSet", `{"group":"child"}`)
		apitest.RequireResult(t, a.Call(t, http.MethodPut, "/accounts/m-kid/group", apitest.Obj{"group": "child"}), http.StatusOK, "account-m-kid")
		apitest.RequireProblem(t, a.Call(t, http.MethodPut, "/accounts/m-kid/group", apitest.Obj{"group": "*"}), http.StatusBadRequest, "InvalidRequest")
		apitest.RequireProblem(t, a.Call(t, http.MethodPut, "/books/c-4/material-type", apitest.Obj{"materialType": "a b"}), http.StatusBadRequest, "InvalidRequest")
		apitest.RequireProblem(t, a.Call(t, http.MethodPut, "/books/nope/material-type", apitest.Obj{"materialType": "dvd"}), http.StatusNotFound, "NotFound")
		apitest.Lend(t, a, "c-4", "l-4", "m-kid")
		apitest.Lend(t, a, "c-1", "l-1", "m-kid")
		p = apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books/c-5/loans", apitest.Obj{"loanId": "l-5", "memberId": "m-kid"}),
			http.StatusConflict, "LoanLimitReached")
		assert.Contains(t, p.Detail, "2 loans at once for child", "the child row's limit counts every type")
	})
}

// Holds follow the rules' holds field: none refuses any hold on a copy of the type; copy allows
// holds on copies but not on titles.
func TestHTTPHoldsFollowTheRules(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		setRules(t, a,
			apitest.Obj{"group": "*", "materialType": "dvd", "holds": "none"},
			apitest.Obj{"group": "child", "materialType": "*", "holds": "copy"})
		apitest.AddBook(t, a, "film")
		apitest.RequireResult(t, a.Call(t, http.MethodPut, "/books/film/material-type", apitest.Obj{"materialType": "dvd"}), http.StatusCreated, "book-film")
		apitest.AddBook(t, a, "novel")
		apitest.Lend(t, a, "film", "l-film", "m-owner")
		apitest.Lend(t, a, "novel", "l-novel", "m-owner")
		apitest.SetContact(t, a, "m-wants", "Wanda", "")
		hold := func(path, member string) apitest.Response {
			return a.Call(t, http.MethodPost, path, apitest.Obj{"memberId": member}, "Idempotency-Key", "hold-"+path+member)
		}
		p := apitest.RequireProblem(t, hold("/books/film/holds", "m-wants"), http.StatusConflict, "HoldsNotAllowed")
		assert.Contains(t, p.Detail, "dvd")
		require.Equal(t, http.StatusCreated, hold("/books/novel/holds", "m-wants").Status, "a book may be held")

		apitest.RequireResult(t, a.Call(t, http.MethodPut, "/accounts/m-kid/group", apitest.Obj{"group": "child"}), http.StatusCreated, "account-m-kid")
		require.Equal(t, http.StatusCreated, hold("/books/novel/holds", "m-kid").Status, "a child may hold a copy")
		title := apitest.TitleStreamOf("novel")[len("title-"):]
		p = apitest.RequireProblem(t, hold("/titles/"+title+"/holds", "m-kid"), http.StatusConflict, "HoldsNotAllowed")
		assert.Contains(t, p.Detail, "titles")
	})
}

// renewalsLeft is what GET /accounts/{memberId}/loans says of the member's one loan, -1 before
// the loans view shows it.
func renewalsLeft(t *testing.T, a *apitest.API, member string) int {
	t.Helper()
	var page struct {
		Loans []struct {
			RenewalsLeft int `json:"renewalsLeft"`
		} `json:"loans"`
	}
	r := a.Get(t, "/accounts/"+member+"/loans")
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &page) != nil || len(page.Loans) != 1 {
		return -1
	}
	return page.Loans[0].RenewalsLeft
}
