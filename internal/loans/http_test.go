package loans_test

// GET /loans and GET /accounts/{memberId}/loans through the whole service, on both stores: a
// loan appears, a renewal moves it and counts down, a return removes it; overdue at the
// service's clock; bad input refused; a replay rebuilds the same rows. Every answer is also
// checked against the OpenAPI document.

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// currentLoan is a loan as both routes show it.
type currentLoan struct {
	BookID       string `json:"bookId"`
	Title        string `json:"title"`
	MemberID     string `json:"memberId"`
	LoanID       string `json:"loanId"`
	LentAt       string `json:"lentAt"`
	DueAt        string `json:"dueAt"`
	RenewalsLeft int    `json:"renewalsLeft"`
	DaysOverdue  int    `json:"daysOverdue"`
}

// loanList is the answer of GET /loans.
type loanList struct {
	Loans    []currentLoan `json:"loans"`
	Next     *string       `json:"next"`
	Position int64         `json:"position"`
}

// memberLoans is the answer of GET /accounts/{memberId}/loans.
type memberLoans struct {
	MemberID string        `json:"memberId"`
	Loans    []currentLoan `json:"loans"`
	More     bool          `json:"more"`
	Position int64         `json:"position"`
}

// listLoans asks GET /loans with the query and wants a page, whose members it checks.
func listLoans(t *testing.T, a *apitest.API, query url.Values, headers ...string) loanList {
	t.Helper()
	r := a.Send(t, http.MethodGet, "/loans?"+query.Encode(), nil, headers...)
	apitest.RequireKeys(t, r.Body, "loans", "next", "position")
	var l loanList
	apitest.RequireJSON(t, r, &l)
	return l
}

// loansOf asks GET /accounts/{memberID}/loans and wants the member's loans.
func loansOf(t *testing.T, a *apitest.API, memberID string, headers ...string) memberLoans {
	t.Helper()
	r := a.Send(t, http.MethodGet, "/accounts/"+memberID+"/loans", nil, headers...)
	apitest.RequireKeys(t, r.Body, "memberId", "loans", "more", "position")
	var l memberLoans
	apitest.RequireJSON(t, r, &l)
	require.Equal(t, memberID, l.MemberID)
	return l
}

// caughtUp waits until the loans view has handled the event at position.
func caughtUp(t *testing.T, a *apitest.API, position int64, headers ...string) {
	t.Helper()
	apitest.Eventually(t, 10*time.Second, func() bool {
		return listLoans(t, a, url.Values{"limit": {"1"}}, headers...).Position >= position
	}, "the loans view to handle position %d", position)
}

// addTitled adds a book with a title of its own.
func addTitled(t *testing.T, a *apitest.API, id, title string) {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": id, "title": title, "author": "Someone"})
	apitest.RequireResult(t, r, http.StatusCreated, "book-"+id)
}

// lendUntil lends bookID to memberID under loanID until due.
func lendUntil(t *testing.T, a *apitest.API, bookID, loanID, memberID string, due time.Time) apitest.Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books/"+bookID+"/loans", apitest.Obj{"loanId": loanID, "memberId": memberID, "dueAt": due.Format(time.RFC3339Nano)})
	return apitest.RequireResult(t, r, http.StatusCreated, "book-"+bookID)
}

func renew(t *testing.T, a *apitest.API, bookID, loanID, key string) apitest.Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books/"+bookID+"/loans/"+loanID+"/renewals", nil, "Idempotency-Key", key)
	return apitest.RequireResult(t, r, http.StatusCreated, "book-"+bookID)
}

func giveBack(t *testing.T, a *apitest.API, bookID, loanID string) apitest.Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books/"+bookID+"/returns", apitest.Obj{"loanId": loanID})
	return apitest.RequireResult(t, r, http.StatusCreated, "book-"+bookID)
}

const day = 24 * time.Hour

// A loan appears with its title, its due time and RENEWALS_MAX renewals left, for staff and
// for its member; a renewal moves its due time by LOAN_PERIOD and counts one down; a return
// takes it away.
func TestHTTPLoanLifecycle(t *testing.T) {
	t.Parallel()
	cfg := apitest.FastBackground(app.Config{RenewalsMax: 2, LoanPeriod: 14 * day})
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		addTitled(t, a, "dune", "Dune")
		addTitled(t, a, "emma", "Emma")
		lent := apitest.Lend(t, a, "dune", "loan-1", "alice")
		caughtUp(t, a, lent.Position)

		lentAt := a.Clock.Now().UTC().Truncate(time.Second)
		want := currentLoan{BookID: "dune", Title: "Dune", MemberID: "alice", LoanID: "loan-1",
			LentAt: lentAt.Format(time.RFC3339), DueAt: lentAt.Add(14 * day).Format(time.RFC3339), RenewalsLeft: 2}
		assert.Equal(t, []currentLoan{want}, listLoans(t, a, nil).Loans)
		assert.Equal(t, []currentLoan{want}, loansOf(t, a, "alice").Loans)
		assert.Empty(t, loansOf(t, a, "bob").Loans, "a member with no loan")

		a.Clock.Advance(day)
		renewed := renew(t, a, "dune", "loan-1", "renew-1")
		caughtUp(t, a, renewed.Position)
		want.DueAt, want.RenewalsLeft = lentAt.Add(28*day).Format(time.RFC3339), 1 // from the due time, later than now
		assert.Equal(t, []currentLoan{want}, listLoans(t, a, nil).Loans)
		assert.Equal(t, []currentLoan{want}, loansOf(t, a, "alice").Loans)

		renewed = renew(t, a, "dune", "loan-1", "renew-2")
		caughtUp(t, a, renewed.Position)
		want.DueAt, want.RenewalsLeft = lentAt.Add(42*day).Format(time.RFC3339), 0
		assert.Equal(t, []currentLoan{want}, listLoans(t, a, nil).Loans)

		back := giveBack(t, a, "dune", "loan-1")
		caughtUp(t, a, back.Position)
		assert.Empty(t, listLoans(t, a, nil).Loans)
		assert.Empty(t, loansOf(t, a, "alice").Loans)

		// Lent again, under a new loan: renewals start again.
		again := apitest.Lend(t, a, "dune", "loan-2", "bob")
		caughtUp(t, a, again.Position)
		l := loansOf(t, a, "bob").Loans
		require.Len(t, l, 1)
		assert.Equal(t, "loan-2", l[0].LoanID)
		assert.Equal(t, 2, l[0].RenewalsLeft)
	})
}

// overdue=true keeps the loans due before the service's clock, and each loan counts the
// whole days it is overdue; the most overdue come first.
func TestHTTPOverdueLoans(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{LoanPeriod: 14 * day}), func(t *testing.T, a *apitest.API) {
		for _, id := range []string{"a1", "b2", "c3"} {
			addTitled(t, a, id, "Book "+id)
		}
		now := a.Clock.Now()
		lendUntil(t, a, "a1", "loan-a", "alice", now.Add(2*day))
		lendUntil(t, a, "b2", "loan-b", "bob", now.Add(day))
		last := apitest.Lend(t, a, "c3", "loan-c", "alice") // 14 days
		caughtUp(t, a, last.Position)

		overdue := url.Values{"overdue": {"true"}}
		assert.Empty(t, listLoans(t, a, overdue).Loans, "nothing is due yet")

		a.Clock.Advance(day + time.Hour) // b2 an hour overdue: overdue, but no whole day yet
		got := listLoans(t, a, overdue).Loans
		require.Len(t, got, 1)
		assert.Equal(t, "b2", got[0].BookID)
		assert.Equal(t, 0, got[0].DaysOverdue)

		a.Clock.Advance(3 * day) // b2 3 days and an hour overdue, a1 2 days and an hour
		got = listLoans(t, a, overdue).Loans
		require.Len(t, got, 2)
		assert.Equal(t, []string{"b2", "a1"}, []string{got[0].BookID, got[1].BookID}, "the most overdue first")
		assert.Equal(t, []int{3, 2}, []int{got[0].DaysOverdue, got[1].DaysOverdue})

		aliceOverdue := listLoans(t, a, url.Values{"overdue": {"true"}, "memberId": {"alice"}}).Loans
		require.Len(t, aliceOverdue, 1)
		assert.Equal(t, "a1", aliceOverdue[0].BookID)

		all := listLoans(t, a, url.Values{"overdue": {"false"}}).Loans
		require.Len(t, all, 3)
		assert.Equal(t, "c3", all[2].BookID)
		assert.Equal(t, 0, all[2].DaysOverdue, "not overdue")
		mine := loansOf(t, a, "alice").Loans
		require.Len(t, mine, 2)
		assert.Equal(t, 2, mine[0].DaysOverdue, "a member's own list counts the days too")
	})
}

// Anything out of the contract is 400 InvalidRequest, never a 500.
func TestHTTPLoansBadInput(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		for _, query := range []string{
			"limit=0", "limit=1001", "limit=-1", "limit=1e2", "limit=+5", "limit=%205", "limit=x",
			"cursor=x", "cursor=AWR1bmU", "cursor=" + url.QueryEscape("AQAGTQ0qTwgABGR1bmVsb2FuLTE3="), "cursor=" + strings.Repeat("A", 400),
			"overdue=yes", "overdue=TRUE", "overdue=1",
			"memberId=-x", "memberId=a%20b", "memberId=me", "memberId=" + strings.Repeat("m", 129),
			"sort=dueAt", "after=x", "limit=5&limit=6", "overdue=true&overdue=true", "limit=%zz", "limit=1;overdue=true",
		} {
			apitest.RequireProblem(t, a.Get(t, "/loans?"+query), http.StatusBadRequest, "InvalidRequest")
		}
		for _, path := range []string{"/accounts/-x/loans", "/accounts/me/loans", "/accounts/a%2Fb/loans", "/accounts/alice/loans?limit=5",
			"/accounts/alice/loans?x"} {
			apitest.RequireProblem(t, a.Get(t, path), http.StatusBadRequest, "InvalidRequest")
		}
		// Cursors the service can't have made: ids that are not ids, a book id longer than what
		// follows, no loan id, another version.
		for _, c := range []string{"AQAGTQ0qTwgABC0tLS1sb2FuLTE3", "AQAGTQ0qTwgAKGR1bmVsb2FuLTE3", "AQAGTQ0qTwgABGR1bmU", "AgAGTQ0qTwgABGR1bmVsb2FuLTE3"} {
			apitest.RequireProblem(t, a.Get(t, "/loans?cursor="+c), http.StatusBadRequest, "InvalidRequest")
		}
		// An empty parameter counts as left out; the example cursor of the document is one.
		listLoans(t, a, url.Values{"limit": {""}, "overdue": {""}, "memberId": {""}, "cursor": {""}})
		listLoans(t, a, url.Values{"cursor": {"AQAGTQ0qTwgABGR1bmVsb2FuLTE3"}})
	})
}

// A replay of the view (POST /admin/processors/loans/replay) rebuilds it from the start of the
// log, to the same loans, renewals and all.
func TestHTTPLoansReplay(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{RenewalsMax: 3}), func(t *testing.T, a *apitest.API) {
		for i := range 6 {
			book := fmt.Sprintf("book-%d", i)
			addTitled(t, a, book, "Title "+book)
			apitest.Lend(t, a, book, "loan-"+book, fmt.Sprintf("m%d", i%2))
		}
		renew(t, a, "book-1", "loan-book-1", "r1")
		renew(t, a, "book-1", "loan-book-1", "r2")
		renew(t, a, "book-4", "loan-book-4", "r3")
		giveBack(t, a, "book-2", "loan-book-2")
		last := giveBack(t, a, "book-5", "loan-book-5")
		caughtUp(t, a, last.Position)
		before := listLoans(t, a, nil)
		require.Len(t, before.Loans, 4)

		answering := apitest.BuildName(t, a, "loans")
		build := apitest.ReplayView(t, a, "loans")
		require.NotEqual(t, answering, build, "a new build, beside the one that answers")
		apitest.Rebuilt(t, a, "loans", build)
		after := listLoans(t, a, nil)
		assert.Equal(t, before.Loans, after.Loans, "the same loans, renewals and all")
		assert.Equal(t, before.Position, after.Position)
	})
}
