package duedates_test

// The due-dates saga through the whole service, on both stores: a day closed moves each loan due
// on it once, a loan lent or renewed onto it afterwards too, a weekly closing the loans due on
// its weekdays; GET /loans and GET /accounts/{memberId}/loans say why; a replay of the saga
// writes nothing. Every answer is checked against the OpenAPI document.

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// dueMoved is why a loan's due time moved, as GET /loans shows it.
type dueMoved struct {
	From   string `json:"from"`
	Reason string `json:"reason"`
	Date   string `json:"date"`
}

// shownLoan is a loan as GET /loans shows it: the fields this test reads.
type shownLoan struct {
	BookID   string
	LoanID   string
	DueAt    string
	DueMoved *dueMoved
}

// shownLoans are the current loans by book, as GET /loans (or a member's list) shows them.
func shownLoans(t *testing.T, a *apitest.API, path string) map[string]shownLoan {
	t.Helper()
	var page struct {
		Loans []struct {
			BookID       string    `json:"bookId"`
			Title        string    `json:"title"`
			MemberID     string    `json:"memberId"`
			LoanID       string    `json:"loanId"`
			LentAt       string    `json:"lentAt"`
			DueAt        string    `json:"dueAt"`
			RenewalsLeft int       `json:"renewalsLeft"`
			DaysOverdue  int       `json:"daysOverdue"`
			DueMoved     *dueMoved `json:"dueMoved"`
		} `json:"loans"`
		Next     *string `json:"next"`
		MemberID string  `json:"memberId"`
		More     bool    `json:"more"`
		Position int64   `json:"position"`
	}
	apitest.RequireJSON(t, a.Get(t, path), &page)
	out := map[string]shownLoan{}
	for _, l := range page.Loans {
		out[l.BookID] = shownLoan{BookID: l.BookID, LoanID: l.LoanID, DueAt: l.DueAt, DueMoved: l.DueMoved}
	}
	return out
}

// bookVersion is GET /books/{bookId}'s version and due time: the book's stream as it is.
func bookVersion(t *testing.T, a *apitest.API, id string) (int64, string) {
	t.Helper()
	var b apitest.Book
	apitest.RequireJSON(t, a.Get(t, "/books/"+id), &b)
	require.NotNil(t, b.Loan, "book %s is lent", id)
	return b.Version, b.Loan.DueAt
}

// lendUntil adds a book and lends it to member until due, and returns the book's version.
func lendUntil(t *testing.T, a *apitest.API, id, member string, due time.Time) int64 {
	t.Helper()
	apitest.AddBook(t, a, id)
	r := a.Call(t, http.MethodPost, "/books/"+id+"/loans", apitest.Obj{"loanId": "loan-" + id, "memberId": member, "dueAt": due.Format(time.RFC3339)})
	return apitest.RequireResult(t, r, http.StatusCreated, "book-"+id).Version
}

// closeDay closes a date through PUT /calendar/closed/{date}.
func closeDay(t *testing.T, a *apitest.API, d string) apitest.Result {
	t.Helper()
	return apitest.RequireResult(t, a.Send(t, http.MethodPut, "/calendar/closed/"+d, nil), http.StatusCreated, "calendar-library")
}

func TestHTTPAClosedDayMovesTheLoansDueOnIt(t *testing.T) {
	t.Parallel()
	cfg := apitest.FastBackground(app.Config{Timezone: paris, LoanPeriod: 7 * 24 * time.Hour, RenewalsMax: 3})
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		closeDay(t, a, "2026-12-25")
		eve := []time.Time{inParis(24, 0, 0), inParis(24, 16, 0), inParis(24, 23, 59)}
		lent := map[string]int64{}
		for i, due := range eve {
			lent[fmt.Sprintf("eve-%d", i)] = lendUntil(t, a, fmt.Sprintf("eve-%d", i), "ann", due)
		}
		lent["before"] = lendUntil(t, a, "before", "ann", endOf(23))
		lendUntil(t, a, "back", "bob", inParis(24, 12, 0))
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/back/returns", apitest.Obj{"loanId": "loan-back"}), http.StatusCreated, "book-back")
		closeDay(t, a, "2026-12-24")
		// Decided after the closing: a loan lent onto the closed day, one renewed onto it (the
		// 17th plus LOAN_PERIOD).
		lent["after"] = lendUntil(t, a, "after", "bob", inParis(24, 9, 30))
		lent["renewed"] = lendUntil(t, a, "renewed", "bob", inParis(17, 9, 30))
		renewed := a.Call(t, http.MethodPost, "/books/renewed/loans/loan-renewed/renewals", nil, "Idempotency-Key", "renew-1")
		lent["renewed"] = apitest.RequireResult(t, renewed, http.StatusCreated, "book-renewed").Version

		from := map[string]time.Time{"eve-0": eve[0], "eve-1": eve[1], "eve-2": eve[2], "after": inParis(24, 9, 30), "renewed": inParis(24, 9, 30)}
		apitest.Eventually(t, 10*time.Second, func() bool {
			loans := shownLoans(t, a, "/loans")
			for id := range from {
				if loans[id].DueMoved == nil {
					return false
				}
			}
			return true
		}, "every loan due on the 24th moved, in the loans view")
		loans := shownLoans(t, a, "/loans")
		for id, was := range from {
			require.Equal(t, shownLoan{BookID: id, LoanID: "loan-" + id, DueAt: "2026-12-26T22:59:59Z",
				DueMoved: &dueMoved{From: was.Format(time.RFC3339), Reason: "closed", Date: "2026-12-24"}}, loans[id],
				"to the end of the 26th in Paris: the 25th is closed too")
			version, due := bookVersion(t, a, id)
			require.Equal(t, lent[id]+1, version, "book %s: one event more, its move", id)
			require.Equal(t, "2026-12-26T22:59:59Z", due)
		}
		require.Nil(t, loans["before"].DueMoved, "due the day before")
		require.Equal(t, endOf(23).Format(time.RFC3339), loans["before"].DueAt)
		require.Equal(t, loans["eve-1"], shownLoans(t, a, "/accounts/ann/loans")["eve-1"], "the member's own list says so too")
		apitest.Eventually(t, 10*time.Second, func() bool {
			var page apitest.CatalogList
			apitest.RequireJSON(t, a.Get(t, "/books?status=lent"), &page)
			for _, b := range page.Books {
				if b.ID == "eve-1" {
					return b.Loan.DueAt == "2026-12-26T22:59:59Z"
				}
			}
			return false
		}, "the catalog shows the moved due time")

		// A replay of the saga handles the closing and every loan again, and writes nothing.
		r := apitest.Admin(t, a, "due-dates", "replay")
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		apitest.CaughtUp(t, a, "due-dates")
		for id := range from {
			version, _ := bookVersion(t, a, id)
			require.Equal(t, lent[id]+1, version, "book %s: still one move", id)
		}

		// Sundays closed from now on: a loan due on a Sunday moves to the Monday.
		sunday := lendUntil(t, a, "sunday", "ann", inParis(13, 15, 0))
		weekly := a.Call(t, http.MethodPut, "/calendar/weekly", apitest.Obj{"closed": []string{"sunday"}})
		apitest.RequireResult(t, weekly, http.StatusCreated, "calendar-library")
		apitest.Eventually(t, 10*time.Second, func() bool {
			return shownLoans(t, a, "/loans")["sunday"].DueMoved != nil
		}, "the Sunday's loan moved")
		require.Equal(t, shownLoan{BookID: "sunday", LoanID: "loan-sunday", DueAt: endOf(14).Format(time.RFC3339),
			DueMoved: &dueMoved{From: inParis(13, 15, 0).Format(time.RFC3339), Reason: "closed", Date: "2026-12-13"}}, shownLoans(t, a, "/loans")["sunday"])
		version, _ := bookVersion(t, a, "sunday")
		require.Equal(t, sunday+1, version)
	})
}
